// SPDX-License-Identifier: GPL-2.0-or-later
/* The one error line of a command for a capture it could not load (commands.h). */
#include <errno.h>
#include <string.h>

#include "lib/util.h"
#include "userspace/cli/commands.h"

int cli_load_failed(const char *cmd, const char *path, int ret, const char *err, const char *enomem_todo)
{
	size_t pl = strlen(path);
	const char *why = err[0] ? err : strerror(-ret);
	const char *todo = "check the path and that it is a fabtrace capture";

	if (ret == -EIO)
		todo = "the capture is damaged there; re-record it or restore an intact copy";
	else if (ret == -ENOMEM)
		todo = enomem_todo;
	/* the reader's messages may already start with the path */
	if (!strncmp(why, path, pl) && why[pl] == ':')
		why += pl + 1 + (why[pl + 1] == ' ');
	if (strchr(why, ';'))
		ft_err("%s: %s: %s", cmd, path, why);
	else
		ft_err("%s: %s: %s; %s", cmd, path, why, todo);
	return 1;
}
