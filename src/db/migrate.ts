import { type Kysely, Migrator } from 'kysely';
import { migrations } from '../../migrations/index.ts';

export interface MigrationReport {
  applied: string[];
}

/** Applies pending migrations (kysely's Migrator takes its own lock, so concurrent starts are safe). */
export async function migrateToLatest<DB>(db: Kysely<DB>): Promise<MigrationReport> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
