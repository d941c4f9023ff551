// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The terminal of `fabtrace top`'s live view (userspace/top/top_term.h):
 * alternate screen, raw input (keys without Enter, no echo; Ctrl-C still a
 * signal, Ctrl-Z disabled so the screen is never left in raw mode behind a
 * stopped job), its size, and its restoration on every way out: normal
 * exit, exit() (atexit), and crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT, SIGQUIT: restore, then the signal's default action).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "userspace/top/top_term.h"

static struct termios ui_orig;
static volatile sig_atomic_t ui_active;

#define SEQ_ENTER "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"
#define SEQ_LEAVE "\x1b[0m\x1b[?25h\x1b[?1049l"

/* Async-signal-safe: write() and tcsetattr() only. */
void top_term__restore(void)
{
	ssize_t n;

	if (!ui_active)
		return;
	ui_active = 0;
	n = write(STDOUT_FILENO, SEQ_LEAVE, sizeof(SEQ_LEAVE) - 1);
	(void)n;
	tcsetattr(STDIN_FILENO, TCSANOW, &ui_orig);
}

static void on_crash(int sig)
{
	top_term__restore();
	raise(sig); /* SA_RESETHAND: the default action, once this handler returns */
}

int top_term__enter(void)
{
	static bool hooked;
	struct termios raw;
	struct sigaction sa;
	static const int crash[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT };

	if (tcgetattr(STDIN_FILENO, &ui_orig))
		return -errno;
	raw = ui_orig;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | IEXTEN);  /* ISIG stays: Ctrl-C is SIGINT */
	raw.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	raw.c_cc[VSUSP] = _POSIX_VDISABLE;  /* Ctrl-Z would leave a raw terminal behind */
	if (!hooked) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_crash;
		sa.sa_flags = (int)SA_RESETHAND;
		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < sizeof(crash) / sizeof(crash[0]); i++)
			sigaction(crash[i], &sa, NULL);
		atexit(top_term__restore);
		hooked = true;
	}
	ui_active = 1;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)) {
		ui_active = 0;
		return -errno;
	}
	if (write(STDOUT_FILENO, SEQ_ENTER, sizeof(SEQ_ENTER) - 1) < 0) {
		top_term__restore();
		return -errno;
	}
	return 0;
}

void top_term__size(int *rows, int *cols)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	} else {
		*rows = 24;
		*cols = 80;
	}
}
