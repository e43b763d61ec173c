/**
 * The console's sign-in links and sessions (docs/console.md), kept in the store so every instance
 * behind a load balancer honours the same ones. Both are known by the SHA-256 of their random
 * token only: a copy of the store signs no one in. `memberId` null: the operator.
 */
export interface NewSignInLink {
  hash: Buffer;
  memberId: number | null;
  createdAt: number;
  expiresAt: number;
}

export interface NewConsoleSession {
  hash: Buffer;
  memberId: number | null;
  createdAt: number;
}

/** Who a link or session signs in: a team admin (by member id) or the operator. */
export interface ConsoleHolder {
  memberId: number | null;
}

export interface ConsoleStore {
  addLink(link: NewSignInLink): Promise<void>;
  /**
   * Uses the link once: marks it used and returns its holder when it is unused and `now` is
   * before its expiry; null otherwise (unknown, used, expired). One statement, so two instances
   * redeeming the same link at once cannot both succeed.
   */
  redeemLink(hash: Buffer, now: number): Promise<ConsoleHolder | null>;
  addSession(session: NewConsoleSession): Promise<void>;
  /**
   * The session's holder when it was last used after `idleSince` and created after
   * `createdSince`, and marks it used at `now`; null when there is no such session, it has been
   * idle too long or it is older than its lifetime.
   */
  touchSession(
    hash: Buffer,
    now: number,
    idleSince: number,
    createdSince: number,
  ): Promise<ConsoleHolder | null>;
  removeSession(hash: Buffer): Promise<void>;
  /** Forgets links expired before `before` and sessions idle since before `idleSince`. */
  prune(before: number, idleSince: number): Promise<void>;
}
