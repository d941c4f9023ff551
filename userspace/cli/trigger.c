// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabtrace trigger: ask the flight recorder on this host (record
 * --switch-output) to save a snapshot, over its control socket
 * (userspace/record/flight_control.h, docs/flight-recorder.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/json.h"
#include "lib/opt.h"
#include "lib/util.h"
#include "userspace/capture/trigger.h"
#include "userspace/cli/commands.h"
#include "userspace/record/flight_control.h"

#define DEFAULT_WAIT_NS (600ull * 1000000000ull)
/* A busy recorder (all its command slots taken): ask again every BUSY_RETRY_MS, for up to BUSY_WAIT_MS. */
#define BUSY_RETRY_MS 50
#define BUSY_WAIT_MS 30000

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fabtrace trigger [--reason TEXT] [--at TIME] [--wait] [--netns NAME] [--control NAME]\n"
"\n"
"Ask the flight recorder running on this host (a fabtrace record writing\n"
"rotating segments; see docs/flight-recorder.md) to save a snapshot: its\n"
"pre-window before the moment and its post-window after it, into one capture\n"
"in its snapshot directory, named snap-TIME-HOST.ftr, that records why\n"
"(report and info show it).  Recording goes on.  A trigger while a\n"
"snapshot's post-window runs extends that snapshot; the recorder's rate\n"
"policy and cool-down may hold one back (the answer says so).  Run it on\n"
"every node (pdsh, a Slurm epilog, kubectl exec) with one --at, and every\n"
"node saves the same wall-clock window.\n"
"\n"
"The recorder listens on @fabtrace/NAME, an abstract Unix socket of the\n"
"network namespace it records; only root may use it.\n"
"\n"
"Options:\n"
"  -r, --reason TEXT     why (up to 127 characters), kept in the snapshot\n"
"      --at TIME         the moment, in seconds since the epoch (as date +%%s.%%N\n"
"                        prints it); default: now.  It may be in the past: the\n"
"                        window then reaches to now; not in the future (beyond\n"
"                        the hosts' clock skew, a few seconds): the recorder\n"
"                        refuses it\n"
"  -w, --wait            wait until the snapshot is written, and name its file\n"
"      --timeout DUR     with --wait: give up waiting after DUR (default 10m)\n"
"      --netns NAME      the recorder of network namespace NAME (record --netns)\n"
"      --control NAME    the recorder's control socket name (record --control;\n"
"                        default flight)\n"
"      --json            print the answer as JSON\n"
"  -h, --help            this help\n"
"\n"
"Exit status: 0 when the recorder took the trigger, whether it saved, extended\n"
"or held back a snapshot ('action' says which); 1 when no recorder listens, it\n"
"refused (not root), or with --wait no snapshot holds the trigger (held back by\n"
"the rate policy or the cool-down, or not saved); 2 for usage errors.\n"
"\n"
"Examples:\n"
"  sudo fabtrace trigger --reason 'loss spike on rail 3'\n"
"  sudo fabtrace trigger --wait --json\n"
"  pdsh -w 'node[01-64]' \"sudo fabtrace trigger --at $(date +%%s.%%N) --reason 'job 4242 step 900 slow'\"\n"
"  kubectl exec -n monitoring ds/fabtrace -- fabtrace trigger --reason incident-17\n"
"  sudo fabtrace trigger --netns lab1h2 --wait\n");
}

struct trig_args {
	const char *reason, *netns, *control;
	int64_t at_ns;
	bool wait, json;
	uint64_t timeout_ns;
};

static int parse(struct trig_args *a, int argc, char **argv)
{
	enum { O_AT = 256, O_TIMEOUT, O_NETNS, O_CONTROL, O_JSON };
	static const struct option lo[] = {
		{ "reason", required_argument, NULL, 'r' }, { "at", required_argument, NULL, O_AT },
		{ "wait", no_argument, NULL, 'w' }, { "timeout", required_argument, NULL, O_TIMEOUT },
		{ "netns", required_argument, NULL, O_NETNS }, { "control", required_argument, NULL, O_CONTROL },
		{ "json", no_argument, NULL, O_JSON }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	bool timeout_given = false;
	uint64_t v;
	int c;

	opterr = 0;
	util_json_from_args(argc, argv, (const char *const[]){ "--json", NULL });
	while ((c = getopt_long(argc, argv, ":r:wh", lo, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (strlen(optarg) > 127) {
				ft_err("trigger: --reason is %zu bytes; 127 at most (a character outside ASCII takes "
				       "2 to 4)", strlen(optarg));
				return -1;
			}
			a->reason = optarg;
			break;
		case O_AT:
			/* seconds since the epoch, with a fraction: a duration since 1970 */
			if (parse_duration(optarg[0] == '@' ? optarg + 1 : optarg, 1000000000ull, &v) ||
			    v > (uint64_t)INT64_MAX) {
				ft_err_bad_value("trigger", "--at", optarg, "a time",
						 "seconds since the epoch, as 'date +%%s.%%N' prints them");
				return -1;
			}
			a->at_ns = (int64_t)v;
			break;
		case 'w':
			a->wait = true;
			break;
		case O_TIMEOUT:
			timeout_given = true;
			if (parse_duration(optarg, 1000000000ull, &a->timeout_ns)) {
				ft_err_bad_value("trigger", "--timeout", optarg, "a duration", "e.g. 60s, 10m");
				return -1;
			}
			break;
		case O_NETNS:
			if (!optarg[0] || strchr(optarg, '/')) {
				ft_err_bad_value("trigger", "--netns", optarg, "a namespace", "a name from 'ip netns'");
				return -1;
			}
			a->netns = optarg;
			break;
		case O_CONTROL:
			if (!flight_ctl__name_ok(optarg)) {
				ft_err_bad_value("trigger", "--control", optarg, "a socket name", FLIGHT_CTL_NAME_HINT);
				return -1;
			}
			a->control = optarg;
			break;
		case O_JSON:
			a->json = true;
			util_set_json(true);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			ft_err_bad_opt("trigger", c, optopt, argv[optind - 1], lo);
			return -1;
		}
	}
	if (optind < argc) {
		ft_err("trigger: unexpected argument '%s'; see 'fabtrace trigger --help'", argv[optind]);
		return -1;
	}
	if (timeout_given && !a->wait) {
		ft_err("trigger: --timeout is how long --wait waits; give --wait too, or leave --timeout out");
		return -1;
	}
	return 0;
}

static int64_t realtime_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static const char *wall(const char *msg, const char *key, char *buf, size_t len)
{
	char v[32];

	if (!flight_ctl__get(msg, key, v, sizeof(v)) || !strtoll(v, NULL, 10))
		return "";
	return fmt_wall(strtoll(v, NULL, 10), buf, len);
}

/* Whether the recorder's ACTION leaves the trigger in no snapshot: held back
 * by the rate policy or the cool-down (covered: a saved one holds it). */
static bool held_back(const char *action)
{
	uint32_t a = trigger__action_by_name(action);

	return a == FT_TRIGA_RATE || a == FT_TRIGA_COOLDOWN;
}

static void print_answer(const struct trig_args *a, const char *msg, const char *saved)
{
	char host[64], action[32], snap[16], file[4096], path[4096], bytes[32], warn[512];
	char at[48], from[48], to[48], what[96];
	struct ft_trigger t = { 0 };

	flight_ctl__get(msg, "host", host, sizeof(host));
	flight_ctl__get(msg, "action", action, sizeof(action));
	flight_ctl__get(msg, "snapshot", snap, sizeof(snap));
	flight_ctl__get(msg, "file", file, sizeof(file));
	flight_ctl__get(saved ? saved : "", "saved", path, sizeof(path));
	flight_ctl__get(saved ? saved : "", "bytes", bytes, sizeof(bytes));
	flight_ctl__get(saved ? saved : "", "warning", warn, sizeof(warn));
	wall(msg, "at", at, sizeof(at));
	wall(msg, "from", from, sizeof(from));
	wall(msg, "to", to, sizeof(to));
	if (a->json) {
		struct json j;

		json_init(&j, stdout, true);
		json_object_begin(&j);
		json_kv_string(&j, "host", host);
		json_kv_string(&j, "action", action);
		json_kv_u64(&j, "snapshot", strtoull(snap, NULL, 10));
		json_kv_string(&j, "at", at);
		json_kv_string(&j, "from", from);
		json_kv_string(&j, "to", to);
		json_kv_string(&j, "file", file);
		json_kv_bool(&j, "saved", path[0] != 0);
		if (path[0])
			json_kv_u64(&j, "bytes", strtoull(bytes, NULL, 10));
		if (warn[0])
			json_kv_string(&j, "warning", warn);
		json_object_end(&j);
		json_finish(&j);
		return;
	}
	t.action = trigger__action_by_name(action);
	t.snapshot = (uint32_t)strtoul(snap, NULL, 10);
	if (!t.action) /* a newer recorder's */
		printf("fabtrace: %s: trigger taken: '%s' (an action this fabtrace does not know)\n", host, action);
	else if (trigger__action_in_snapshot(t.action))
		printf("fabtrace: %s: %s, %s to %s: %s\n", host, trigger__action_text(&t, what, sizeof(what)), from,
		       to, file);
	else
		printf("fabtrace: %s: trigger %s\n", host, trigger__action_text(&t, what, sizeof(what)));
	if (path[0]) {
		char b[32];

		printf("fabtrace: %s: snapshot %s saved: %s (%s)%s%s\n", host, snap, path,
		       fmt_bytes(strtod(bytes, NULL), b, sizeof(b)), warn[0] ? "; " : "", warn);
	}
}

int cmd_trigger(int argc, char **argv)
{
	struct trig_args a = { .control = FLIGHT_CTL_DEFAULT, .timeout_ns = DEFAULT_WAIT_NS };
	char err[512], msg[FLIGHT_CTL_MSG], saved[FLIGHT_CTL_MSG], reason[128] = "", action[32];
	int64_t at;
	ssize_t n;
	int fd, rc = 1;

	if (parse(&a, argc, argv))
		return 2;
	/* the moment this was run: pdsh reaches the nodes at slightly different times */
	at = a.at_ns ? a.at_ns : realtime_now();
	if (geteuid() != 0) {
		ft_err("trigger: only root may trigger a snapshot; run it with sudo");
		return 1;
	}
	if (a.reason) {
		str_copy(reason, a.reason, sizeof(reason));
		flight_ctl__clean(reason);
	}
	/* a recorder serving as many commands as it holds at once says busy: this one
	 * waits its turn (for up to BUSY_WAIT_MS), keeping its moment (at) */
	for (int waited = 0;; waited += BUSY_RETRY_MS) {
		fd = flight_ctl__connect(a.control, a.netns, err, sizeof(err));
		if (fd < 0) {
			ft_err("trigger: %s", err);
			return 1;
		}
		/* a recorder that refuses us answers and closes at once: its answer is read all the same */
		(void)flight_ctl__send(fd, "trigger\nreason=%s\nat=%lld\nwait=%d\n", reason, (long long)at, a.wait);
		n = flight_ctl__recv(fd, msg, sizeof(msg), 10000);
		/* busy, or closed without an answer (a refusal's answer can go with the close) */
		if (waited >= BUSY_WAIT_MS ||
		    !(n == -EPIPE || n == -ECONNRESET ||
		      (n >= 0 && flight_ctl__get(msg, "error", err, sizeof(err)) && !strncmp(err, "busy", 4))))
			break;
		close(fd);
		usleep(BUSY_RETRY_MS * 1000);
	}
	if (n < 0) {
		ft_err("trigger: no answer from the recorder (%s)", n == -ETIMEDOUT ? "10 s" : strerror((int)-n));
		goto out;
	}
	if (flight_ctl__get(msg, "error", err, sizeof(err))) {
		ft_err("trigger: %s", err);
		goto out;
	}
	/* held back: no file, nothing to wait for */
	if (a.wait && flight_ctl__get(msg, "file", saved, sizeof(saved)) && saved[0]) {
		uint64_t ms = a.timeout_ns / 1000000;

		n = flight_ctl__recv(fd, saved, sizeof(saved), ms > INT32_MAX ? INT32_MAX : (int)ms);
		if (n < 0 || flight_ctl__get(saved, "error", err, sizeof(err))) {
			if (!a.json) /* the error is the JSON answer */
				print_answer(&a, msg, NULL);
			if (n < 0)
				ft_err("trigger: the snapshot was not saved %s", n == -ETIMEDOUT ? "within --timeout" :
				       "(the recorder stopped before)");
			else
				ft_err("trigger: %s", err);
			goto out;
		}
		print_answer(&a, msg, saved);
		rc = 0;
		goto out;
	}
	print_answer(&a, msg, NULL);
	rc = 0;
	if (a.wait && flight_ctl__get(msg, "action", action, sizeof(action)) && held_back(action)) {
		/* a script that waits wants the moment saved: this node has no snapshot of it
		 * (the JSON answer says so itself: "saved": false, and why in "action") */
		if (!a.json)
			ft_err("trigger: --wait: no snapshot holds this trigger (%s)", action);
		rc = 1;
	}
out:
	close(fd);
	return rc;
}
