import { z } from 'zod';
import { clientTlsSchema } from './tls';

const hostPort = z.string().regex(/^(\[[^\]]+\]|[^\s:/]+):\d{1,5}$/, 'must be host:port');

/**
 * `llmgw ctl`'s config file (docs/ctl.md): where the admin APIs are, the TLS
 * files to reach them with (relative paths are relative to the file), and
 * the actor recorded in the audit log. `llmgw up` writes one in its data
 * directory. Flags and LLMGW_* variables win over it.
 */
export const ctlConfigSchema = z
  .object({
    /** accounting's admin gRPC address (TenancyAdmin). */
    accounting: hostPort.optional(),
    /** The ControlService address: the placement-scheduler (or inventory's node half). */
    control: hostPort.optional(),
    /** TLS to the admin APIs: CA, operator certificate and key (role operator), server name. */
    tls: clientTlsSchema.optional(),
    /** Who to record in the audit log; default $USER@host. */
    actor: z.string().min(1).max(200).optional(),
  })
  .strict();

export type CtlConfigFile = z.output<typeof ctlConfigSchema>;
