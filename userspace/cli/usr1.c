// SPDX-License-Identifier: GPL-2.0-or-later
/* SIGUSR1 to a recording that is not a flight recorder (commands.h). */
#include <signal.h>
#include <unistd.h>

#include "userspace/cli/commands.h"

static void usr1_not_flight(int sig)
{
	static const char msg[] = "fabtrace: SIGUSR1 ignored: this recording is not a flight recorder "
				  "(record --switch-output), it takes no snapshots\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
		/* nothing to do about it in a signal handler */
	}
}

void cli_usr1_not_flight(void)
{
	struct sigaction sa = { .sa_handler = usr1_not_flight, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}
