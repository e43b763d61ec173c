import type { Member, Team } from './directory.js';

/**
 * What the directory slice needs from a store: teams, members and subteams.
 * Implemented once per engine in src/storage/ (src/store.ts gathers the ports).
 */

export interface SubteamAccess {
  /** Whether the member asking administers this subteam. */
  memberIsAdmin: boolean;
}

export interface DirectoryStore {
  /** The subteam as seen from `teamId`: `null` when it does not exist or belongs to another team. */
  subteamAccess(teamId: number, subteamId: number, memberId: number): Promise<SubteamAccess | null>;
  /** A member by numeric id or by e-mail. */
  findMember(ref: number | string): Promise<Member | null>;
  /** Every member, or those of one team, by team then id (`leadline members list`). */
  members(teamId: number | null): Promise<Member[]>;
  team(id: number): Promise<Team | null>;
  /** Every team, by id (`leadline teams list`). */
  teams(): Promise<Team[]>;
  /** Ids of the subteams of `teamId` that the member administers. */
  adminSubteams(teamId: number, memberId: number): Promise<number[]>;
  /** Whether `adminId` administers a subteam that `memberId` is currently a member of. */
  administers(teamId: number, adminId: number, memberId: number): Promise<boolean>;
  /** Whether the store holds no lead at all (`npm start` seeds a demo then). */
  isEmpty(): Promise<boolean>;
  /** Highest team, member and subteam ids in use (0 when none), so generated data can follow them. */
  maxIds(): Promise<{ team: number; member: number; subteam: number }>;
}
