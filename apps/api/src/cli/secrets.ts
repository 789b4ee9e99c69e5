import { resealStoredSecrets } from '../modules/webhooks/webhook-secret.service';
import { parseCommandArgs, type Command } from './args';

const usage = 'secrets reencrypt';

export const secretCommands: Command[] = [
  {
    path: ['secrets', 'reencrypt'],
    usage,
    summary:
      'Re-encrypt every stored secret under the first key of SECRETS_ENCRYPTION_KEYS (after it, the other keys can be removed)',
    parse(argv) {
      parseCommandArgs(argv, { usage });
      return async (orm) => {
        const report = await resealStoredSecrets(orm.em.fork(), 'all');
        const unreadable =
          report.endpoints.unreadable.length + report.idempotency_answers.unreadable;
        if (unreadable > 0) {
          throw new Error(
            `${unreadable} stored secrets are sealed under keys SECRETS_ENCRYPTION_KEYS does not list ` +
              `(endpoints: ${report.endpoints.unreadable.join(', ') || 'none'}); add those keys ` +
              `back and run it again (${report.endpoints.resealed + report.idempotency_answers.resealed} others were re-encrypted)`,
          );
        }
        return report;
      };
    },
  },
];
