// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the keys of `fabtrace top`'s live view
 * (userspace/top/top_input.c): sorting both ways, one key per key of a
 * read, an escape sequence (an arrow key) as one key that does nothing,
 * the filter typed, edited and cancelled, the help closed by any key.
 * The terminal and the loop: test_top (tmux).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "userspace/top/top_input.h"

#define KEYS(v, s) top_input__keys((v), (s), strlen(s))

static void test_sort(void **state)
{
	struct top_view v = { 0 };

	(void)state;
	KEYS(&v, "s");
	assert_int_equal(v.sort, TOP_SORT_PEAK);
	KEYS(&v, "ss");       /* a paste or key repeat: each key */
	assert_int_equal(v.sort, TOP_SORT_BACKLOG);
	KEYS(&v, "SSS");
	assert_int_equal(v.sort, TOP_SORT_RATE);
	KEYS(&v, "S");        /* backwards past the first */
	assert_int_equal(v.sort, TOP_SORT_N - 1);
	KEYS(&v, "\x1b[A\x1b[1;5Ds"); /* arrows (CSI with parameters) are one key each, ignored */
	assert_int_equal(v.sort, TOP_SORT_RATE);
	assert_false(v.editing);
}

static void test_filter(void **state)
{
	struct top_view v = { 0 };

	(void)state;
	KEYS(&v, "/eth0x\x7f\r");   /* typed, one backspace, Enter */
	assert_false(v.editing);
	assert_string_equal(v.filter, "eth0");
	KEYS(&v, "fh2");            /* f edits from the current filter */
	assert_true(v.editing);
	assert_string_equal(v.edit, "eth0h2");
	KEYS(&v, "s\x1b");          /* in the editor s is a letter; Esc cancels */
	assert_false(v.editing);
	assert_string_equal(v.filter, "eth0");
	assert_int_equal(v.sort, TOP_SORT_RATE);
	KEYS(&v, "/");
	for (int i = 0; i < 100; i++)
		KEYS(&v, "a");      /* never past the buffer */
	assert_int_equal(strlen(v.edit), sizeof(v.edit) - 1);
}

static void test_help(void **state)
{
	struct top_view v = { 0 };

	(void)state;
	KEYS(&v, "?");
	assert_true(v.help);
	KEYS(&v, "s");              /* any key closes the help and does nothing else */
	assert_false(v.help);
	assert_int_equal(v.sort, TOP_SORT_RATE);
	KEYS(&v, "h");
	assert_true(v.help);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_help),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
