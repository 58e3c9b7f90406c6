import type { Command } from 'commander';
import type { CtlContext } from '../context';
import { registerCert } from './cert';
import { registerKey } from './key';
import { registerLimit } from './limit';
import { registerOrg, registerProject, registerTeam } from './tenancy-tree';
import { registerUsage } from './usage';
import { registerNodes } from './nodes';
import { registerLogs } from './logs';
import { registerTop } from './top';
import { registerPlacement } from './placement';
import { registerQuota } from './quota';
import { registerUser } from './user';
import { registerBench } from './bench';
import { registerCapacity } from './capacity';
import { registerPlan } from './plan';

/**
 * The command modules, in help order. Each registers its sibling command
 * group on the program; the model verbs (`models`, `replicas`,
 * `explain-placement`) join them here.
 */
export const COMMAND_MODULES: Array<(program: Command, ctx: CtlContext) => void> = [
  registerOrg,
  registerTeam,
  registerProject,
  registerKey,
  registerLimit,
  registerUsage,
  registerNodes,
  registerLogs,
  registerTop,
  registerPlacement,
  registerQuota,
  registerBench,
  registerCapacity,
  registerPlan,
  registerUser,
  registerCert,
];
