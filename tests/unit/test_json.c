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

static void test_script_safe(void **state)
{
	struct json j;
	struct buf b;
	const char *hostile = "</script><b>&amp; \xe2\x80\xa8line\xe2\x80\xa9para \xe2\x82\xac\xff";

	(void)state;
	start(&b, &j, false);
	j.script_safe = true;
	json_object_begin(&j);
	json_kv_string(&j, "a<b", hostile);
	json_object_end(&j);
	json_finish(&j);
	/* no '<' at all (so no "</script"), U+2028/9 escaped, other UTF-8 kept, bad bytes replaced */
	expect(&b, "{\"a\\u003cb\":\"\\u003c/script\\u003e\\u003cb\\u003e\\u0026amp; \\u2028line\\u2029para "
		   "\xe2\x82\xac\\ufffd\"}\n");

	/* the same string in an ordinary document: only what JSON needs */
	start(&b, &j, false);
	json_string(&j, hostile);
	json_finish(&j);
	expect(&b, "\"</script><b>&amp; \xe2\x80\xa8line\xe2\x80\xa9para \xe2\x82\xac\\ufffd\"\n");
}

/* One event per line, as the traces write them: json_break before each. */
static void test_breaks(void **state)
{
	struct json j;
	struct buf b;

	(void)state;
	start(&b, &j, false);
	json_object_begin(&j);
	json_kv_string(&j, "unit", "ns");
	json_break(&j);
	json_kv_array_begin(&j, "events");
	for (int i = 0; i < 3; i++) {
		json_break(&j);
		json_kv_object_begin(&j, NULL);
		json_kv_i64(&j, "i", i);
		json_object_end(&j);
	}
	json_break(&j);
	json_array_end(&j);
	json_object_end(&j);
	json_finish(&j);
	expect(&b, "{\"unit\":\"ns\",\n\"events\":[\n{\"i\":0},\n{\"i\":1},\n{\"i\":2}\n]}\n");

	/* pretty output breaks lines itself: the request changes nothing */
	start(&b, &j, true);
	json_array_begin(&j);
	json_break(&j);
	json_u64(&j, 1);
	json_break(&j);
	json_array_end(&j);
	json_finish(&j);
	expect(&b, "[\n  1\n]\n");
}

/* Elements through the kv shorthands (NULL key), exact decimals, a value written elsewhere. */
static void test_elements_fixed_raw(void **state)
{
	struct json j;
	struct buf b;

	(void)state;
	start(&b, &j, false);
	json_kv_array_begin(&j, NULL);
	json_kv_u64(&j, NULL, 7);
	json_kv_i64(&j, NULL, -7);
	json_kv_string(&j, NULL, "s");
	json_kv_bool(&j, NULL, true);
	json_kv_double(&j, NULL, 0.5, 1);
	json_fixed(&j, 12345, 3);
	json_fixed(&j, -100, 3);
	json_fixed(&j, 0, 3);
	json_fixed(&j, INT64_MIN, 3);
	json_fixed(&j, 42, 0);
	json_kv_fixed(&j, NULL, -5, 1);
	json_raw(&j, "{\"pre\":[1,2]}", 13);
	json_kv_object_begin(&j, NULL);
	json_kv_fixed(&j, "ts", 1500, 3);
	json_key(&j, "raw");
	json_raw(&j, "[]", 2);
	json_object_end(&j);
	json_array_end(&j);
	json_finish(&j);
	expect(&b, "[7,-7,\"s\",true,0.5,12.345,-0.100,0.000,-9223372036854775.808,42,-0.5,"
		   "{\"pre\":[1,2]},{\"ts\":1.500,\"raw\":[]}]\n");
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
		cmocka_unit_test(test_script_safe),
		cmocka_unit_test(test_breaks),
		cmocka_unit_test(test_elements_fixed_raw),
		cmocka_unit_test(test_deep_nesting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
