// SPDX-License-Identifier: GPL-2.0-or-later
/* An output that would replace a capture (commands.h). */
#include <string.h>

#include "lib/util.h"
#include "userspace/capture/capture.h"
#include "userspace/cli/commands.h"

int cli_out_over_capture(const char *cmd, const char *opt, const char *out, const char *what)
{
	if (!out || !strcmp(out, "-") || !capture__is_capture(out, NULL))
		return 0;
	ft_err("%s: %s%s%s is a fabtrace capture, which %s would replace; name another output, or remove it first",
	       cmd, opt ? opt : "", opt ? " " : "", out, what);
	return 2;
}
