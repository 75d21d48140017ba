/**
 * Every command of the CLI, in the order `airless --help` lists them. A new command is
 * one file in this folder and one line here.
 */
import type { Command } from '../registry.js';
import { backfill } from './backfill.js';
import { build } from './build.js';
import { clear } from './clear.js';
import { dagsList } from './dags-list.js';
import { dev } from './dev.js';
import { init } from './init.js';
import { logs } from './logs.js';
import { pause } from './pause.js';
import { push } from './push.js';
import { rehearse } from './rehearse.js';
import { run } from './run.js';
import { runs } from './runs.js';
import { signal } from './signal.js';
import { tasks } from './tasks.js';
import { tasksTest } from './tasks-test.js';
import { timerPump } from './timer-pump.js';
import { trigger } from './trigger.js';
import { unpause } from './unpause.js';
import { ui } from './ui.js';
import { variablesDelete, variablesGet, variablesList, variablesSet } from './variables.js';
import { connectionsDelete, connectionsGet, connectionsList, connectionsSet } from './connections.js';
import { assetsEmit, assetsEvents, assetsList } from './assets.js';

export const COMMANDS: readonly Command[] = [
  init, build, dagsList, run, backfill, tasksTest, dev,
  push, trigger, runs, tasks, logs, signal, pause, unpause, clear, ui, timerPump, rehearse,
  variablesSet, variablesGet, variablesList, variablesDelete, connectionsSet, connectionsGet, connectionsList, connectionsDelete,
  assetsList, assetsEvents, assetsEmit,
];
