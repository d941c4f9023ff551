/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Subcommands, dispatched from userspace/main.c.  argv[0] is the subcommand name. */
#ifndef FABTRACE_COMMANDS_H
#define FABTRACE_COMMANDS_H

int cmd_record(int argc, char **argv);   /* userspace/cli/record.c */
int cmd_report(int argc, char **argv);   /* userspace/cli/report.c */
int cmd_info(int argc, char **argv);     /* userspace/cli/info.c */
int cmd_export(int argc, char **argv);   /* userspace/cli/export.c */
int cmd_top(int argc, char **argv);      /* userspace/cli/top.c */
int cmd_features(int argc, char **argv); /* userspace/cli/features.c */
int cmd_merge(int argc, char **argv);    /* userspace/cli/merge.c */
int cmd_compare(int argc, char **argv);  /* userspace/cli/compare.c */
int cmd_history(int argc, char **argv);  /* userspace/cli/history.c */
int cmd_trigger(int argc, char **argv);  /* userspace/cli/trigger.c */

/*
 * The one error line for a capture CMD could not load (RET from
 * model__load, ERR the reader's reason; ENOMEM_TODO what to do when memory
 * ran out): "CMD: PATH: why; what to do".  Returns 1, the exit status.
 */
int cli_load_failed(const char *cmd, const char *path, int ret, const char *err, const char *enomem_todo);

/*
 * 2 (the usage error's exit status) with the one error line when OUT (an
 * output file named with OPT, NULL for a bare argument) holds a capture that
 * WHAT ("the SVG") would replace: an input's name typed where the output's
 * belongs.  0 for anything else, "-" and a file that does not exist.
 * userspace/cli/out_check.c
 */
int cli_out_over_capture(const char *cmd, const char *opt, const char *out, const char *what);

/*
 * SIGUSR1 asks a flight recorder for a snapshot.  A recording of its own
 * (record without --switch-output, top --record) has none to take, and the
 * signal's default action ended it without its END record: `kill -USR1
 * $(pgrep -f 'fabtrace record')` cut every capture on the host short.  This
 * has it say so instead (a handler, not SIG_IGN, which a traced command
 * would inherit across exec).  userspace/cli/usr1.c
 */
void cli_usr1_not_flight(void);

#endif
