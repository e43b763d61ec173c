import type { Sql } from 'postgres';
import type { Member, Role, Team } from '../../directory/directory.js';
import type { DirectoryStore, SubteamAccess } from '../../directory/directory.port.js';

export interface PgMemberRow {
  id: number;
  team_id: number;
  email: string;
  name: string | null;
  role: Role;
  pid: string | null;
}

export function pgToMember(r: PgMemberRow): Member {
  return { id: r.id, teamId: r.team_id, email: r.email, name: r.name, role: r.role, pid: r.pid };
}

/** Whether subteam $2 is team $1's, and whether member $3 administers it (no row: not the team's). */
export const PG_SUBTEAM_ACCESS = `SELECT EXISTS (
    SELECT 1 FROM subteam_members sm WHERE sm.team_id = s.team_id AND sm.subteam_id = s.id
      AND sm.member_id = $3 AND sm.is_admin) AS is_admin
  FROM subteams s WHERE s.id = $2 AND s.team_id = $1`;

export class PostgresDirectoryStore implements DirectoryStore {
  /** `reads` routes subteam look-ups (request path) like lead reads; the rest use the primary. */
  constructor(
    private readonly sql: Sql,
    private readonly reads: () => Sql = () => sql,
  ) {}

  async subteamAccess(teamId: number, subteamId: number, memberId: number): Promise<SubteamAccess | null> {
    const [row] = await this.reads().unsafe<{ is_admin: boolean }[]>(
      PG_SUBTEAM_ACCESS,
      [teamId, subteamId, memberId],
      { prepare: true },
    );
    return row === undefined ? null : { memberIsAdmin: row.is_admin };
  }

  async findMember(ref: number | string): Promise<Member | null> {
    const [row] =
      typeof ref === 'number'
        ? await this.sql<
            PgMemberRow[]
          >`SELECT id, team_id, email, name, role, pid FROM members WHERE id = ${ref}`
        : await this.sql<
            PgMemberRow[]
          >`SELECT id, team_id, email, name, role, pid FROM members WHERE email = ${ref}`;
    return row === undefined ? null : pgToMember(row);
  }

  async team(id: number): Promise<Team | null> {
    const [r] = await this.sql<
      { id: number; name: string; time_zone: string }[]
    >`SELECT id, name, time_zone FROM teams WHERE id = ${id}`;
    return r === undefined ? null : { id: r.id, name: r.name, timeZone: r.time_zone };
  }

  async teams(): Promise<Team[]> {
    const rows = await this.sql<
      { id: number; name: string; time_zone: string }[]
    >`SELECT id, name, time_zone FROM teams ORDER BY id`;
    return rows.map((r) => ({ id: r.id, name: r.name, timeZone: r.time_zone }));
  }

  async members(teamId: number | null): Promise<Member[]> {
    const rows =
      teamId === null
        ? await this.sql<
            PgMemberRow[]
          >`SELECT id, team_id, email, name, role, pid FROM members ORDER BY team_id, id`
        : await this.sql<
            PgMemberRow[]
          >`SELECT id, team_id, email, name, role, pid FROM members WHERE team_id = ${teamId} ORDER BY id`;
    return rows.map(pgToMember);
  }

  async adminSubteams(teamId: number, memberId: number): Promise<number[]> {
    const rows = await this.reads()<{ subteam_id: number }[]>`SELECT subteam_id FROM subteam_members
      WHERE team_id = ${teamId} AND member_id = ${memberId} AND is_admin ORDER BY subteam_id`;
    return rows.map((r) => r.subteam_id);
  }

  async administers(teamId: number, adminId: number, memberId: number): Promise<boolean> {
    const [row] = await this.reads()<{ yes: boolean }[]>`SELECT EXISTS (SELECT 1 FROM subteam_members a
        JOIN subteam_members m ON m.team_id = a.team_id AND m.subteam_id = a.subteam_id
        WHERE a.team_id = ${teamId} AND a.member_id = ${adminId} AND a.is_admin
          AND m.member_id = ${memberId} AND m.is_member) AS yes`;
    return row?.yes ?? false;
  }

  async isEmpty(): Promise<boolean> {
    const [row] = await this.sql<{ empty: boolean }[]>`SELECT NOT EXISTS (SELECT 1 FROM leads) AS empty`;
    return row?.empty ?? true;
  }

  async maxIds(): Promise<{ team: number; member: number; subteam: number }> {
    const [row] = await this.sql<{ team: number; member: number; subteam: number }[]>`SELECT
      (SELECT coalesce(max(id), 0) FROM teams) AS team, (SELECT coalesce(max(id), 0) FROM members) AS member,
      (SELECT coalesce(max(id), 0) FROM subteams) AS subteam`;
    return row ?? { team: 0, member: 0, subteam: 0 };
  }
}
