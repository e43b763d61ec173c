import { eraseData, reclaimAfterErasure } from '../../privacy/erase.js';
import type { ErasureReceipt } from '../../privacy/erasure.port.js';
import { receiptToWire } from '../../privacy/wire.js';
import { AppError } from '../../shared/errors.js';
import { type ConsoleDeps, ConsolePageError, type ConsoleSession } from './console-deps.js';
import { type Html, html } from './html.js';
import { teamQuery } from './layout.js';

/** The longest e-mail the form takes (RFC 5321's path limit, with room), as the lead search. */
const EMAIL_MAX = 320;

/**
 * "Erase a person" on the Privacy view (docs/console.md, docs/privacy.md "Erasure"): a team's
 * admin — or the operator, for the team in view — erases every lead of the team holding an
 * e-mail, through the same use case as `POST /api/pub/v2/erasures` and `leadline erase`; the
 * e-mail is then suppressed. The form asks for the e-mail and a confirmation; the answer shows
 * the receipt.
 */
export function eraseSection(session: ConsoleSession, team: number | null): Html {
  if (team === null) return html`<h2>Erase a person</h2><p>Choose a team to erase a person from it.</p>`;
  return html`<h2>Erase a person</h2>
<p>Every lead of the team whose e-mail is this address (spaces around it and case do not count) is erased with everything that holds it — its search text, its webhook events and deliveries — in one step; webhook receivers are told (<code>lead.erased</code>, ids only) and the address is refused from then on. <strong>This cannot be undone.</strong></p>
<form method="post" action="/console/privacy/erase${teamQuery(session, team)}" class="stack" data-confirm="Erase every lead of this person? This cannot be undone.">
<input type="hidden" name="_csrf" value="${session.csrf}">
<label for="erase-email">The person's e-mail</label><input id="erase-email" name="email" type="email" maxlength="${EMAIL_MAX}" autocomplete="off" required>
<label><input type="checkbox" name="confirm" value="yes" required> I understand the person's leads are erased for good</label>
<button type="submit" class="danger">Erase this person</button></form>`;
}

/** Erases the person the form names (`POST /console/privacy/erase`); the notice holds the receipt. */
export async function erasePerson(
  deps: ConsoleDeps,
  session: ConsoleSession,
  team: number | null,
  form: Record<string, unknown>,
): Promise<Html> {
  if (team === null) throw new ConsolePageError(400, 'Not erased', 'Choose a team first.');
  if (form.confirm !== 'yes')
    throw new ConsolePageError(400, 'Not erased', 'Tick the confirmation to erase the person.');
  const email = typeof form.email === 'string' ? form.email : '';
  if (email.length > EMAIL_MAX)
    throw new ConsolePageError(400, 'Not erased', `An e-mail has at most ${EMAIL_MAX} characters.`);
  const by =
    session.subject.kind === 'team-admin'
      ? { console: { memberId: session.subject.member.id, teamId: team } }
      : { operator: { teamId: team } };
  const receipt = await eraseData(deps.store, { by, email, now: deps.now() }).catch((err: unknown) => {
    if (err instanceof AppError && err.code === 'invalid-parameters')
      throw new ConsolePageError(400, 'Not erased', 'Give the person’s e-mail address.');
    throw err;
  });
  // As `leadline erase`: the freed space is reclaimed before the receipt is shown (docs/privacy.md
  // "Physically gone"); a person at a form can wait the checkpoint or VACUUM out.
  await reclaimAfterErasure(deps.store);
  return receiptNotice(receipt);
}

function receiptNotice(receipt: ErasureReceipt): Html {
  const c = receipt.counts;
  return html`<section class="notice" role="status" aria-labelledby="receipt-title"><h2 id="receipt-title">Erased: the receipt</h2>
<p>${c.leads === 0 ? 'No lead of the team held this e-mail; it is suppressed from now on all the same.' : `${c.leads} leads erased (${c.mergedLeads} of them merged into another), with ${c.webhookEvents} webhook events and ${c.webhookDeliveries} deliveries. The e-mail is suppressed from now on.`}</p>
<p>Keep the receipt: it names no one, only a keyed hash of the e-mail. A team admin's key reads it again at <code>GET /api/pub/v2/erasures/${receipt.id}</code>.</p>
<pre>${JSON.stringify(receiptToWire(receipt), null, 2)}</pre></section>`;
}
