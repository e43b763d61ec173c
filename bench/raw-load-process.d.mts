/** Types of bench/raw-load-process.mjs (plain JavaScript: it runs as a process with node alone). */
export declare const PG_TABLES: string[];
export declare function loadSqlite(
  dbPath: string,
  dir: string,
  tables: { table: string; columns: string[] }[],
): number;
export declare function loadPostgres(url: string, dir: string): Promise<number>;
