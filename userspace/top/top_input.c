// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The keyboard and the window of `fabtrace top`'s live view
 * (userspace/top/top_input.h): handlers in the session's event loop that
 * change the view's state (sort, filter, help, peaks) or stop the session,
 * then redraw.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>

#include "userspace/live/live.h"
#include "userspace/record/session.h"
#include "userspace/top/top_input.h"
#include "userspace/top/top_term.h"
#include "lib/util.h"

static void on_key(struct top_view *v, const char *k, size_t n)
{
	if (v->help) { /* any key closes the help */
		v->help = false;
		return;
	}
	if (v->editing) {
		for (size_t i = 0; i < n; i++) {
			char c = k[i];
			size_t len = strlen(v->edit);

			if (c == '\r' || c == '\n') {
				str_copy(v->filter, v->edit, sizeof(v->filter));
				v->editing = false;
				return;
			}
			if (c == 0x1b) { /* Esc (or an escape sequence: ignored) */
				v->editing = false;
				return;
			}
			if ((c == 0x7f || c == 0x08) && len)
				v->edit[len - 1] = '\0';
			else if ((unsigned char)c >= 0x20 && c != 0x7f && len + 1 < sizeof(v->edit)) {
				v->edit[len] = c;
				v->edit[len + 1] = '\0';
			}
		}
		return;
	}
	if (n > 1 && k[0] == 0x1b) /* arrow keys and the like */
		return;
	switch (k[0]) {
	case 'q':
	case 'Q':
		session__stop(v->s, FT_STOP_SIGNAL);
		break;
	case 's':
		v->sort = (v->sort + 1) % TOP_SORT_N;
		break;
	case 'S':
		v->sort = (v->sort + TOP_SORT_N - 1) % TOP_SORT_N;
		break;
	case '/':
	case 'f':
		v->editing = true;
		str_copy(v->edit, v->filter, sizeof(v->edit));
		break;
	case 'r':
		live__reset_peaks(v->l);
		break;
	case 'h':
	case '?':
		v->help = true;
		break;
	case 0x0c: /* Ctrl-L: redraw */
		break;
	default:
		return;
	}
}

/* Every key of one read (a paste, key repeat, a laggy ssh: "ss" moved the
 * sort once), an escape sequence (an arrow key) as one. */
void top_input__keys(struct top_view *v, const char *k, size_t n)
{
	for (size_t i = 0, len; i < n; i += len) {
		len = 1;
		if (k[i] == 0x1b && i + 1 < n && (k[i + 1] == '[' || k[i + 1] == 'O')) {
			len = 2; /* CSI/SS3: parameters, then a final byte in 0x40-0x7e */
			while (i + len < n && !((unsigned char)k[i + len] >= 0x40 && (unsigned char)k[i + len] <= 0x7e))
				len++;
			if (i + len < n)
				len++;
		}
		on_key(v, k + i, len);
	}
}

static void on_stdin(void *ctx, int fd, uint32_t events)
{
	struct top_view *v = ctx;
	char k[64];
	ssize_t n;

	(void)events;
	n = read(fd, k, sizeof(k));
	if (n <= 0) { /* the terminal went away */
		session__stop(v->s, FT_STOP_SIGNAL);
		return;
	}
	top_input__keys(v, k, (size_t)n);
	top_view__draw(v);
}

static void on_winch(void *ctx, int fd, uint32_t events)
{
	struct top_view *v = ctx;
	struct signalfd_siginfo info;

	(void)events;
	while (read(fd, &info, sizeof(info)) == sizeof(info))
		;
	top_term__size(&v->rows, &v->cols);
	top_view__draw(v);
}

int top_input__start(struct top_input *in, struct top_view *v)
{
	sigset_t mask;

	in->v = v;
	sigemptyset(&mask);
	sigaddset(&mask, SIGWINCH);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	in->wfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (in->wfd < 0 || session__watch(v->s, in->wfd, EPOLLIN, on_winch, v) < 0 ||
	    session__watch(v->s, STDIN_FILENO, EPOLLIN, on_stdin, v) < 0) {
		ft_err("top: cannot watch the terminal: %s", strerror(errno));
		return -1;
	}
	if (top_term__enter()) {
		ft_err("top: cannot set up the terminal: %s; use --once or --json", strerror(errno));
		return -1;
	}
	top_term__size(&v->rows, &v->cols);
	top_view__draw(v);
	return 0;
}

void top_input__close(struct top_input *in)
{
	if (!in->v)
		return;
	if (in->wfd >= 0)
		close(in->wfd);
	in->wfd = -1;
	in->v = NULL;
}
