/**
 * Names in the registry (tenant types, tenants, API keys). SPEC.md does not show their rules, so they follow
 * its text rule for names (section 8: 2 to 120 bytes). The command layer trims; a decider refuses the rest.
 */
export function isValidRegistryName(name: string): boolean {
  if (name !== name.trim()) return false;
  // Control characters would corrupt listings and logs.
  if (/\p{Cc}/u.test(name)) return false;
  const bytes = new TextEncoder().encode(name).length;
  return bytes >= 2 && bytes <= 120;
}
