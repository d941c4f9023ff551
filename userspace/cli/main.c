// SPDX-License-Identifier: GPL-2.0-or-later
/* fabtrace: congestion tracer for the fabric under GPU training clusters. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "userspace/cli/commands.h"
#include "lib/util.h"

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "record", cmd_record, "trace the fabric into a capture file" },
	{ "report", cmd_report, "summarise a capture (text or --json)" },
	{ "top", cmd_top, "live view of the fabric (and a Prometheus metrics endpoint with --listen)" },
	{ "compare", cmd_compare, "set runs A against runs B: the configuration diff, then every metric with its significance" },
	{ "history", cmd_history, "read the flight recorder's per-collective summaries: verdicts and time budget over days" },
	{ "merge", cmd_merge, "merge the captures of several hosts onto one clock" },
	{ "trigger", cmd_trigger, "make the flight recorder (record --switch-output) save a snapshot" },
	{ "info", cmd_info, "show a capture's header, probes, record counts and lost events" },
	{ "export", cmd_export, "write a capture's raw bins, qdisc bins, events and counters as CSV or JSON lines" },
	{ "features", cmd_features, "show which probes work on this kernel, and why not" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: fabtrace COMMAND [OPTIONS]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-9s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f,
		"\n'fabtrace COMMAND --help' (or 'fabtrace help COMMAND') shows a command's options;\n"
		"'fabtrace --version' (or -V) the version.\n\n"
		"Examples:\n"
		"  sudo fabtrace record -i eth0 -d 10s -o incident.ftr\n"
		"  fabtrace report incident.ftr\n"
		"  fabtrace report --json incident.ftr\n"
		"  fabtrace info incident.ftr\n"
		"  fabtrace export --what all -o incident-csv/ incident.ftr\n"
		"  fabtrace merge -o job.ftr job-node1.ftr job-node2.ftr\n"
		"  fabtrace compare cubic-1.ftr cubic-2.ftr -- bbr-1.ftr bbr-2.ftr\n"
		"  sudo fabtrace record -i eth0 --switch-output 10s --keep 10m -o /var/lib/fabtrace\n"
		"  sudo fabtrace trigger --reason 'slow step'\n"
		"  sudo fabtrace top\n"
		"  sudo fabtrace top --headless --listen 127.0.0.1:9464\n"
		"  sudo fabtrace features\n");
}

/*
 * Output that could not be written is a failure, not a success: `fabtrace
 * info > f` on a full disk exited 0 with f cut short.  A reader that went
 * away (| head) is not an error of ours.  A command that failed has said
 * why in its one line, often that very write: no second line.
 */
static int stdout_written(int rc)
{
	int e;

	if (rc) {
		fflush(stdout);
		return rc;
	}
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	e = errno ? errno : stream_errno(stdout);
	if (e == EPIPE)
		return rc;
	/* to stderr even under --json: stdout is what failed */
	fprintf(stderr, "fabtrace: writing the standard output: %s\n", strerror(e));
	return rc ? rc : 1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		for (size_t i = 0; argc > 2 && i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (!strcmp(argv[2], cmds[i].name)) /* fabtrace help record: record's own */
				return stdout_written(cmds[i].fn(2, (char *[]){ argv[2], "--help", NULL }));
		if (argc > 2) {
			ft_err("no command '%s' to help with; see 'fabtrace --help'", argv[2]);
			return 2;
		}
		usage(stdout);
		return stdout_written(0);
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		if (argc > 2) {
			ft_err("%s takes no argument ('%s'); see 'fabtrace --help'", argv[1], argv[2]);
			return 2;
		}
		printf("fabtrace %s\n", FT_VERSION);
		return stdout_written(0);
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return stdout_written(cmds[i].fn(argc - 1, argv + 1));
	ft_err("unknown command '%s'; see 'fabtrace --help'", argv[1]);
	return 2;
}
