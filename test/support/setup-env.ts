// Vite puts its own BASE_URL ('/') into process.env; Calebe reads BASE_URL as the public address, and the
// CLI processes the tests start inherit this environment.
delete process.env.BASE_URL;

// TEST_PROJECTIONS=async (npm run test:async): the gateways and CLI processes the tests start run every
// projection by catch-up (PROJECTIONS=async), as under EventStoreDB.
if (process.env.TEST_PROJECTIONS) process.env.PROJECTIONS = process.env.TEST_PROJECTIONS;
