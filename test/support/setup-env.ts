// Vite puts its own BASE_URL ('/') into process.env; Calebe reads BASE_URL as the public address, and the
// CLI processes the tests start inherit this environment.
delete process.env.BASE_URL;
