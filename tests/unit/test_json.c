// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the JSON writer (lib/json.c): exact output strings. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/json.h"

struct buf {
	char *p;
	size_t n;
	FILE *f;
};

static void start(struct buf *b, struct json *j, bool pretty)
{
	b->p = NULL;
	b->n = 0;
	b->f = open_memstream(&b->p, &b->n);
	assert_non_null(b->f);
	json_init(j, b->f, pretty);
}

static void expect(struct buf *b, const char *want)
{
	fclose(b->f);
	if (strcmp(b->p, want) != 0)
		fail_msg("got\n%s\nwant\n%s", b->p, want);
	free(b->p);
}

static void doc(struct json *j)
{
	json_object_begin(j);
	json_kv_string(j, "name", "fabtrace");
	json_kv_u64(j, "blocks", 3);
	json_key(j, "list");
	json_array_begin(j);
	json_u64(j, 1);
	json_i64(j, -2);
	json_object_begin(j);
	json_kv_bool(j, "ok", true);
	json_object_end(j);
	json_array_begin(j);
	json_array_end(j);
	json_null(j);
	json_array_end(j);
	json_key(j, "empty");
	json_object_begin(j);
	json_object_end(j);
	json_kv_double(j, "ratio", 0.125, 3);
	json_object_end(j);
	json_finish(j);
}

static void test_compact(void **state)
{
	struct json j;
	struct buf b;

	(void)state;
	start(&b, &j, false);
	doc(&j);
	expect(&b, "{\"name\":\"fabtrace\",\"blocks\":3,\"list\":[1,-2,{\"ok\":true},[],null],"
		   "\"empty\":{},\"ratio\":0.125}\n");
}

static void test_pretty(void **state)
{
	struct json j;
	struct buf b;

	(void)state;
	start(&b, &j, true);
	doc(&j);
	expect(&b,
	       "{\n"
	       "  \"name\": \"fabtrace\",\n"
	       "  \"blocks\": 3,\n"
	       "  \"list\": [\n"
	       "    1,\n"
	       "    -2,\n"
	       "    {\n"
	       "      \"ok\": true\n"
	       "    },\n"
	       "    [],\n"
	       "    null\n"
	       "  ],\n"
	       "  \"empty\": {},\n"
	       "  \"ratio\": 0.125\n"
	       "}\n");
}

static void test_top_level_array(void **state)
{
	struct json j;
	struct buf b;

	(void)state;
	start(&b, &j, false);
	json_array_begin(&j);
	for (int i = 0; i < 3; i++) {
		json_object_begin(&j);
		json_kv_i64(&j, "i", i);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_finish(&j);
	expect(&b, "[{\"i\":0},{\"i\":1},{\"i\":2}]\n");

	/* two documents in a row with the same writer state reset */
	start(&b, &j, false);
	json_string(&j, "x");
	json_finish(&j);
	expect(&b, "\"x\"\n");
}

static void test_escaping(void **state)
{
	struct json j;
	struct buf b;

	(void)state;
	start(&b, &j, false);
	json_array_begin(&j);
	json_string(&j, "quote\" backslash\\ slash/");
	json_string(&j, "nl\n tab\t cr\r bell\x07 esc\x1b del\x7f");
	json_string(&j, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); /* é € 😀 kept */
	json_string(&j, "bad\xff end\xc3");                           /* invalid bytes */
	json_string(&j, "overlong\xc0\xaf surrogate\xed\xa0\x80");
	json_string(&j, "");
	json_string(&j, NULL);
	json_array_end(&j);
	json_finish(&j);
	expect(&b, "[\"quote\\\" backslash\\\\ slash/\","
		   "\"nl\\u000a tab\\u0009 cr\\u000d bell\\u0007 esc\\u001b del\\u007f\","
		   "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\","
		   "\"bad\\ufffd end\\ufffd\","
		   "\"overlong\\ufffd\\ufffd surrogate\\ufffd\\ufffd\\ufffd\","
		   "\"\","
		   "null]\n");

	/* keys are escaped too */
	start(&b, &j, false);
	json_object_begin(&j);
	json_kv_string(&j, "k\"ey", "v");
	json_object_end(&j);
	json_finish(&j);
	expect(&b, "{\"k\\\"ey\":\"v\"}\n");
}

static void test_numbers(void **state)
{
	struct json j;
	struct buf b;

	(void)state;
	start(&b, &j, false);
	json_array_begin(&j);
	json_double(&j, 1.0 / 3.0, 4);
	json_double(&j, 2.5, 0);
	json_double(&j, -1.25, 2);
	json_double(&j, NAN, 3);
	json_double(&j, INFINITY, 3);
	json_double(&j, -INFINITY, 3);
	json_double(&j, -0.0001, 3);  /* rounds to zero: no sign */
	json_double(&j, 1e6, 1);
	json_double(&j, 3.0, -5);     /* negative decimals clamp to 0 */
	json_u64(&j, UINT64_MAX);
	json_i64(&j, INT64_MIN);
	json_bool(&j, false);
	json_array_end(&j);
	json_finish(&j);
	expect(&b, "[0.3333,2,-1.25,null,null,null,0.000,1000000.0,3,"
		   "18446744073709551615,-9223372036854775808,false]\n");

	/* kv shorthands of null-ish values */
	start(&b, &j, true);
	json_object_begin(&j);
	json_kv_double(&j, "nan", NAN, 2);
	json_kv_string(&j, "none", NULL);
	json_object_end(&j);
	json_finish(&j);
	expect(&b, "{\n  \"nan\": null,\n  \"none\": null\n}\n");
}

static void test_deep_nesting(void **state)
{
	struct json j;
	struct buf b;
	char want[256];
	size_t k = 0;

	(void)state;
	/* deeper than JSON_MAX_DEPTH must not write out of bounds */
	start(&b, &j, false);
	for (int i = 0; i < JSON_MAX_DEPTH + 8; i++)
		json_array_begin(&j);
	for (int i = 0; i < JSON_MAX_DEPTH + 8; i++)
		json_array_end(&j);
	json_array_end(&j); /* one too many: ignored */
	json_finish(&j);
	for (int i = 0; i < JSON_MAX_DEPTH + 8; i++)
		want[k++] = '[';
	for (int i = 0; i < JSON_MAX_DEPTH + 8; i++)
		want[k++] = ']';
	want[k++] = '\n';
	want[k] = '\0';
	expect(&b, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_pretty),
		cmocka_unit_test(test_top_level_array),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_deep_nesting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
