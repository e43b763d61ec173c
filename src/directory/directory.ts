/** Teams, members and subteams: who collects leads and who may read them (docs/v1-reference.md C2). */
export type Role = 'admin' | 'member';

export interface Team {
  id: number;
  name: string;
  /** IANA time zone for the `time` label of leads that arrive without one. */
  timeZone: string;
}

export interface Member {
  id: number;
  teamId: number;
  email: string;
  name: string | null;
  role: Role;
  /** Default profile id shared with leads (`userPid`). */
  pid: string | null;
}

export interface Subteam {
  id: number;
  teamId: number;
  name: string;
  members: number[];
  admins: number[];
}

/** The authenticated caller of an API operation, as resolved from its key. */
export interface Caller {
  keyId: number;
  memberId: number;
  teamId: number;
  role: Role;
  keyCreatedAt: number;
  legacyV1: boolean;
}
