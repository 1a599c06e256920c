/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope CLI: the helpers every command uses (never a command itself:
 * those are in builtin.h).
 */
#ifndef PMUSCOPE_CLI_H
#define PMUSCOPE_CLI_H

#include "cpus-events.h"
#include "exit-codes.h"
#include "parse-options.h"
#include "read-file.h"
#include "pmuscope.h"
#include "stat-output.h"
#include "run-wait.h"

#endif
