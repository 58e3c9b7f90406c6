import type { Command } from 'commander';
import type { CtlContext } from '../context';
import { registerCert } from './cert';
import { registerKey } from './key';
import { registerLimit } from './limit';
import { registerOrg, registerProject, registerTeam } from './tenancy-tree';
import { registerUsage } from './usage';

/**
 * The command modules, in help order. Each registers its sibling command
 * group on the program; later rounds add `nodes`, `models`, `replicas`,
 * `cordon`, `drain`, `explain-placement` and `logs` here.
 */
export const COMMAND_MODULES: Array<(program: Command, ctx: CtlContext) => void> = [registerOrg, registerTeam, registerProject, registerKey, registerLimit, registerUsage, registerCert];
