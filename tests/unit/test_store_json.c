/* Unit tests for store/store_json.c, the dashboard's JSON writer (issue 18:
 * the run page and a trace's history are written with it instead of cJSON):
 * every number reads back as exactly the double it was (strtod), short
 * decimals stay short, strings are escaped as cJSON escapes them and made
 * valid UTF-8, separators are right at every depth (the text parses with
 * cJSON to the same tree). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "store_json.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void assert_reads_back(double v)
{
    char text[32];
    size_t n = rt_json_format_double(v, text);
    cr_assert_eq(n, strlen(text));
    char *end = NULL;
    double back = strtod(text, &end);
    cr_assert(*end == '\0', "'%s' is not all number", text);
    cr_assert(back == v, "%.17g printed as '%s' reads back as %.17g", v, text, back);
    char longest[40];
    snprintf(longest, sizeof longest, "%.17g", v);
    cr_assert(n <= strlen(longest) + 6, "'%s' is longer than '%s' needs", text, longest);
}

Test(json_numbers, random_bit_patterns_read_back)
{
    for (int i = 0; i < 2000000; i++) {
        uint64_t bits = next_random();
        double v;
        memcpy(&v, &bits, sizeof v);
        if (isfinite(v))
            assert_reads_back(v);
    }
}

/* The values a dashboard holds: SSIMs near 1, milliseconds, thresholds. */
Test(json_numbers, dashboard_ranges_read_back)
{
    for (int i = 0; i < 2000000; i++) {
        double unit = (double)(next_random() >> 11) / 9007199254740992.0;
        assert_reads_back(unit);
        assert_reads_back(1 - unit * 1e-3);
        assert_reads_back(unit * 1e4);
        assert_reads_back(-unit * 50);
        assert_reads_back(unit * 1e-4);
        assert_reads_back(nextafter(1.0, 0.0) - unit * 1e-15);
        assert_reads_back(ldexp(1.0, (int)(next_random() % 120) - 60)); /* powers of two */
    }
}

static void assert_text(double v, const char *want)
{
    char text[32];
    rt_json_format_double(v, text);
    cr_assert_str_eq(text, want, "%.17g", v);
}

Test(json_numbers, short_forms)
{
    assert_text(0, "0");
    assert_text(-0.0, "0");
    assert_text(3, "3");
    assert_text(-42, "-42");
    assert_text(0.995, "0.995");
    assert_text(0.98, "0.98");
    assert_text(28.25, "28.25");
    assert_text(0.9996, "0.9996");
    assert_text(0.1 + 0.2, "0.30000000000000004");
    assert_text(1e-5, "0.00001");
    assert_text(9007199254740992.0, "9007199254740992");
    assert_text(1e300, "1.0000000000000001e+300");
    assert_text(123456789012.5, "123456789012.5");
    assert_text(2.0 / 3.0, "0.6666666666666666");
}

static char *write_sample(void)
{
    struct rt_jw w;
    rt_jw_init(&w);
    rt_jw_object(&w);
    rt_jw_key(&w, "a");
    rt_jw_array(&w);
    rt_jw_int(&w, 1);
    rt_jw_int(&w, INT64_MIN);
    rt_jw_double(&w, 0.5);
    rt_jw_double(&w, NAN);
    rt_jw_bool(&w, true);
    rt_jw_null(&w);
    rt_jw_object(&w);
    rt_jw_end_object(&w);
    rt_jw_array(&w);
    rt_jw_string(&w, "x");
    rt_jw_end_array(&w);
    rt_jw_end_array(&w);
    rt_jw_key(&w, "s");
    rt_jw_string(&w, "q\"b\\n\n\t\x01/\xc3\xa9\xff\xe2\x82");
    rt_jw_key(&w, "raw");
    rt_jw_raw(&w, "{\"k\":[1,2]}", 11);
    rt_jw_key(&w, "none");
    rt_jw_string(&w, NULL);
    rt_jw_end_object(&w);
    size_t len = 0;
    char *text = rt_jw_take(&w, &len);
    cr_assert_not_null(text);
    cr_assert_eq(len, strlen(text));
    return text;
}

Test(json_writer, separators_escapes_and_utf8)
{
    char *text = write_sample();
    cr_assert_str_eq(text, "{\"a\":[1,-9223372036854775808,0.5,null,true,null,{},[\"x\"]],"
                           "\"s\":\"q\\\"b\\\\n\\n\\t\\u0001/\xc3\xa9???\","
                           "\"raw\":{\"k\":[1,2]},\"none\":null}");
    cJSON *json = cJSON_Parse(text);
    cr_assert_not_null(json);
    cr_assert_str_eq(cJSON_GetObjectItem(json, "s")->valuestring, "q\"b\\n\n\t\x01/\xc3\xa9???");
    cJSON_Delete(json);
    free(text);
}

Test(json_writer, an_open_container_is_no_answer)
{
    struct rt_jw w;
    rt_jw_init(&w);
    rt_jw_array(&w);
    size_t len = 0;
    cr_assert_null(rt_jw_take(&w, &len));
}

Test(json_writer, long_answers_grow)
{
    struct rt_jw w;
    rt_jw_init(&w);
    rt_jw_array(&w);
    for (int i = 0; i < 100000; i++)
        rt_jw_string(&w, "0123456789");
    rt_jw_end_array(&w);
    size_t len = 0;
    char *text = rt_jw_take(&w, &len);
    cr_assert_eq(len, 100000 * 13 + 1);
    cJSON *json = cJSON_Parse(text);
    cr_assert_eq(cJSON_GetArraySize(json), 100000);
    cJSON_Delete(json);
    free(text);
}
