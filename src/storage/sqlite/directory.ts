import type Database from 'better-sqlite3';
import type { Member, Role, Team } from '../../directory/directory.js';
import type { DirectoryStore, SubteamAccess } from '../../directory/directory.port.js';

interface MemberRow {
  id: number;
  team_id: number;
  email: string;
  name: string | null;
  role: Role;
  pid: string | null;
}

export function toMember(r: MemberRow): Member {
  return { id: r.id, teamId: r.team_id, email: r.email, name: r.name, role: r.role, pid: r.pid };
}

/** Whether subteam `?2` is team `?3`'s, and whether member `?1` administers it (no row: not the team's). */
export const SUBTEAM_ACCESS = `SELECT s.id,
    EXISTS (SELECT 1 FROM subteam_members sm
            WHERE sm.team_id = s.team_id AND sm.subteam_id = s.id AND sm.member_id = ? AND sm.is_admin = 1) AS is_admin
  FROM subteams s WHERE s.id = ? AND s.team_id = ?`;

export class SqliteDirectoryStore implements DirectoryStore {
  private readonly subteamStmt: Database.Statement;
  private readonly memberByIdStmt: Database.Statement;
  private readonly memberByEmailStmt: Database.Statement;
  private readonly anyLeadStmt: Database.Statement;
  private readonly maxIdsStmt: Database.Statement;
  private readonly teamStmt: Database.Statement;
  private readonly adminSubteamsStmt: Database.Statement;
  private readonly administersStmt: Database.Statement;
  private readonly membersStmt: Database.Statement;
  private readonly teamMembersStmt: Database.Statement;
  private readonly teamsStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.subteamStmt = db.prepare(SUBTEAM_ACCESS);
    this.memberByIdStmt = db.prepare('SELECT id, team_id, email, name, role, pid FROM members WHERE id = ?');
    this.memberByEmailStmt = db.prepare(
      'SELECT id, team_id, email, name, role, pid FROM members WHERE email = ?',
    );
    this.anyLeadStmt = db.prepare('SELECT EXISTS (SELECT 1 FROM leads) AS any');
    this.maxIdsStmt = db.prepare(`SELECT (SELECT coalesce(max(id), 0) FROM teams) AS team,
      (SELECT coalesce(max(id), 0) FROM members) AS member, (SELECT coalesce(max(id), 0) FROM subteams) AS subteam`);
    this.teamStmt = db.prepare('SELECT id, name, time_zone FROM teams WHERE id = ?');
    this.teamsStmt = db.prepare('SELECT id, name, time_zone FROM teams ORDER BY id');
    this.membersStmt = db.prepare(
      'SELECT id, team_id, email, name, role, pid FROM members ORDER BY team_id, id',
    );
    this.teamMembersStmt = db.prepare(
      'SELECT id, team_id, email, name, role, pid FROM members WHERE team_id = ? ORDER BY id',
    );
    this.adminSubteamsStmt = db
      .prepare(
        'SELECT subteam_id FROM subteam_members WHERE team_id = ? AND member_id = ? AND is_admin = 1 ORDER BY subteam_id',
      )
      .pluck();
    this.administersStmt = db.prepare(`SELECT EXISTS (SELECT 1 FROM subteam_members a
        JOIN subteam_members m ON m.team_id = a.team_id AND m.subteam_id = a.subteam_id
        WHERE a.team_id = ? AND a.member_id = ? AND a.is_admin = 1 AND m.member_id = ? AND m.is_member = 1) AS yes`);
  }

  async team(id: number): Promise<Team | null> {
    const r = this.teamStmt.get(id) as { id: number; name: string; time_zone: string } | undefined;
    return r === undefined ? null : { id: r.id, name: r.name, timeZone: r.time_zone };
  }

  async teams(): Promise<Team[]> {
    const rows = this.teamsStmt.all() as { id: number; name: string; time_zone: string }[];
    return rows.map((r) => ({ id: r.id, name: r.name, timeZone: r.time_zone }));
  }

  async members(teamId: number | null): Promise<Member[]> {
    const rows = (teamId === null ? this.membersStmt.all() : this.teamMembersStmt.all(teamId)) as MemberRow[];
    return rows.map(toMember);
  }

  async adminSubteams(teamId: number, memberId: number): Promise<number[]> {
    return this.adminSubteamsStmt.all(teamId, memberId) as number[];
  }

  async administers(teamId: number, adminId: number, memberId: number): Promise<boolean> {
    return (this.administersStmt.get(teamId, adminId, memberId) as { yes: number }).yes === 1;
  }

  async subteamAccess(teamId: number, subteamId: number, memberId: number): Promise<SubteamAccess | null> {
    const row = this.subteamStmt.get(memberId, subteamId, teamId) as { is_admin: number } | undefined;
    return row === undefined ? null : { memberIsAdmin: row.is_admin === 1 };
  }

  async findMember(ref: number | string): Promise<Member | null> {
    const row = (typeof ref === 'number' ? this.memberByIdStmt.get(ref) : this.memberByEmailStmt.get(ref)) as
      | MemberRow
      | undefined;
    return row === undefined ? null : toMember(row);
  }

  async isEmpty(): Promise<boolean> {
    return (this.anyLeadStmt.get() as { any: number }).any === 0;
  }

  async maxIds(): Promise<{ team: number; member: number; subteam: number }> {
    return this.maxIdsStmt.get() as { team: number; member: number; subteam: number };
  }
}
