// SPDX-License-Identifier: GPL-2.0-or-later
/* Capability checks without libcap: one capget(2). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "probes/privs.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool have_cap(int cap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];
	const char *fake = getenv("FABTRACE_FAKE_NOPRIV");

	if (fake && !strcmp(fake, "1"))
		return false;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return false;
	return d[cap / 32].effective & (1u << (cap % 32));
}

bool privs_sys_admin(void)
{
	return have_cap(CAP_SYS_ADMIN);
}

bool privs_ok(char *missing, size_t len)
{
	bool admin = have_cap(CAP_SYS_ADMIN);
	const struct { int cap; const char *name; bool implied; } need[] = {
		{ CAP_BPF, "CAP_BPF", admin },
		{ CAP_PERFMON, "CAP_PERFMON", admin },
		{ CAP_NET_ADMIN, "CAP_NET_ADMIN", false },
	};
	bool ok = true;

	missing[0] = 0;
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (need[i].implied || have_cap(need[i].cap))
			continue;
		ok = false;
		if (missing[0])
			strncat(missing, ", ", len - strlen(missing) - 1);
		strncat(missing, need[i].name, len - strlen(missing) - 1);
	}
	return ok;
}
