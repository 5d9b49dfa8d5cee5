/*
 * tests/model/test_file.c - the model file (model/file.c): overrides over a
 * kind's table, exact error messages, print/parse round trip, loading.
 */
#include "ces_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse(struct ces_ctx *ctx, const char *text, struct ces_model *m)
{
    return ces_model_parse(ctx, text, strlen(text), "m.model", NULL, m);
}

static void test_overrides(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_model m;

    (void)state;
    assert_int_equal(parse(ctx,
                           "# calibrated\n"
                           "kind = h200\n"
                           "\n"
                           "peer_copy_gbps = 391.5   # measured\n"
                           "  copy_engines=2\n"
                           "flag_widths = 32\r\n"
                           "signal_hop_us = 4.75\n"
                           "slow_wake_us = 6.5",
                           &m),
                     CES_OK);
    assert_string_equal(m.kind, "h200");
    assert_true(m.peer_copy_gbps == 391.5);
    assert_true(m.link_gbps == 391.5); /* peer_copy_gbps alone sets it too */
    assert_int_equal(m.copy_engines, 2);
    assert_int_equal(m.flag_widths, CES_MODEL_W32);
    assert_true(m.signal_hop_us == 4.75);
    assert_true(m.slow_wake_us == 6.5);
    assert_true(m.local_copy_gbps == 2036.0); /* untouched: from the table */
    assert_int_equal(m.max_memops_per_batch, 255);
    /* a GPU's link above one copy's rate, the copy's rate as the table's;
     * a copy faster than the table's link raises the link, as files
     * written before link_gbps meant it */
    assert_int_equal(parse(ctx, "link_gbps = 450\n", &m), CES_OK);
    assert_true(m.link_gbps == 450.0);
    assert_true(m.peer_copy_gbps == 394.0);
    assert_int_equal(parse(ctx, "peer_copy_gbps = 500\n", &m), CES_OK);
    assert_true(m.link_gbps == 500.0);
    /* the largest unsigned integer a field holds */
    assert_int_equal(parse(ctx, "max_ranks = 4294967295\n", &m), CES_OK);
    assert_int_equal(m.max_ranks, UINT32_MAX);
    ces_test_ctx_end(ctx, &st);
}

static void test_base(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_model base = *ces_model_find("h200"), m;

    (void)state;
    base.event_us = 9.0;
    assert_int_equal(ces_model_parse(ctx, "per_copy_us = 0", 15, NULL, &base, &m), CES_OK);
    assert_true(m.event_us == 9.0);
    assert_true(m.per_copy_us == 0.0);
    /* a per_copy_us below the table's per_graph_copy_us (2.5) that the
     * file does not give lowers that one too: what predict always used */
    assert_true(m.per_graph_copy_us == 0.0);
    assert_int_equal(ces_model_parse(ctx, "per_copy_us = 2\nper_graph_copy_us = 2", 37, NULL,
                                     &base, &m),
                     CES_OK);
    assert_true(m.per_graph_copy_us == 2.0);
    /* 3..255 parse (1 and 2 are refused at their line: test_parse_errors) */
    assert_int_equal(ces_model_parse(ctx, "max_memops_per_batch = 3", 24, NULL, &base, &m),
                     CES_OK);
    assert_int_equal(m.max_memops_per_batch, 3);
    assert_int_equal(ces_model_parse(ctx, "max_memops_per_batch = 255", 26, NULL, &base, &m),
                     CES_OK);
    assert_int_equal(ces_model_parse(ctx, "", 0, NULL, &base, &m), CES_OK);
    assert_true(m.event_us == 9.0);
    /* a file of a byte order mark alone is empty too */
    m.event_us = 0.0;
    assert_int_equal(ces_model_parse(ctx, "\xef\xbb\xbf", 3, NULL, &base, &m), CES_OK);
    assert_true(m.event_us == 9.0);
    ces_test_ctx_end(ctx, &st);
}

static void test_errors(void **state)
{
    static const struct {
        const char *text;
        const char *msg;
    } cases[] = {
        {"bogus = 1\n", "m.model:1:1: expected a field of the machine model (kind, flag_widths, "
                        "max_memops_per_batch, can_flush_remote_writes, has_64bit_memops, "
                        "has_wait_nor, copy_engines, batch_engines, max_ranks, "
                        "graph_copies_serial, split_wait_mib, peer_copy_gbps, link_gbps, "
                        "local_copy_gbps, per_copy_us, per_local_copy_us, per_graph_copy_us, copy_batch_us, "
                        "memop_batch_us, progress_write_us, signal_hop_us, signal_push_us, "
                        "signal_local_us, event_us, slow_wake_us, switch_us, copy_switch_us, "
                        "host_call_us, graph_launch_us), found 'bogus'"},
        /* a field's name in full, not a prefix of one */
        {"copy_engine = 2\n", "m.model:1:1: expected a field of the machine model (kind, "
                               "flag_widths, max_memops_per_batch, can_flush_remote_writes, "
                               "has_64bit_memops, has_wait_nor, copy_engines, batch_engines, "
                               "max_ranks, graph_copies_serial, split_wait_mib, peer_copy_gbps, "
                               "link_gbps, local_copy_gbps, per_copy_us, per_local_copy_us, "
                               "per_graph_copy_us, copy_batch_us, memop_batch_us, "
                               "progress_write_us, signal_hop_us, signal_push_us, "
                               "signal_local_us, event_us, slow_wake_us, switch_us, "
                               "copy_switch_us, host_call_us, graph_launch_us), found "
                               "'copy_engine'"},
        {"\n  = 1\n", "m.model:2:3: expected a field name, found '='"},
        {"peer_copy_gbps 1\n", "m.model:1:16: expected '=', found '1'"},
        {"peer_copy_gbps =\n", "m.model:1:17: expected a value, found the end of the line"},
        {"peer_copy_gbps = 1 2 # two\n", "m.model:1:20: expected the end of the line, found '2'"},
        /* a bandwidth says what it takes, > 0 (it said >= 0, then refused 0) */
        {"peer_copy_gbps = fast\n", "m.model:1:18: expected a bandwidth > 0, found 'fast'"},
        {"peer_copy_gbps = -1\n", "m.model:1:18: expected a bandwidth > 0, found '-1'"},
        {"peer_copy_gbps = 0\n", "m.model:1:18: expected a bandwidth > 0, found '0'"},
        {"per_copy_us = -1\n", "m.model:1:15: expected a number >= 0, found '-1'"},
        {"local_copy_gbps = 0\n", "m.model:1:19: expected a bandwidth > 0, found '0'"},
        /* 1e308 us summed to infinity, which the prediction took for a stall */
        {"host_call_us = 1e308\n", "m.model:1:16: expected a number at most 1e9, found '1e308'"},
        {"peer_copy_gbps = 1.7976931348623157e308\n",
         "m.model:1:18: expected a number at most 1e9, found '1.7976931348623157e308'"},
        {"peer_copy_gbps = 1e-300\n",
         "m.model:1:18: expected a bandwidth of at least 1e-9, found '1e-300'"},
        /* beyond a double's range: they were "expected a number >= 0" */
        {"per_copy_us = 1e-400\n",
         "m.model:1:15: expected 0 or a number a double can hold: out of range, too small to "
         "represent, found '1e-400'"},
        /* a bandwidth takes no 0: its message says what it takes */
        {"peer_copy_gbps = 1e-400\n",
         "m.model:1:18: expected a bandwidth of at least 1e-9: out of range, too small to "
         "represent, found '1e-400'"},
        {"per_copy_us = 1e400\n",
         "m.model:1:15: expected a number at most 1e9: out of range, too large to represent, "
         "found '1e400'"},
        /* infinity is no number below 0 (it was "expected a number >= 0") */
        {"per_copy_us = inf\n", "m.model:1:15: expected a number at most 1e9, found 'inf'"},
        {"peer_copy_gbps = infinity\n",
         "m.model:1:18: expected a number at most 1e9, found 'infinity'"},
        /* decimal only, as every number of the tools (strtod read 0x10 as
         * 16 and 0x1p-3 as 0.125) */
        {"per_copy_us = 0x10\n", "m.model:1:15: expected a number >= 0, found '0x10'"},
        {"signal_hop_us = 0x1p-3\n", "m.model:1:17: expected a number >= 0, found '0x1p-3'"},
        {"copy_engines = 2.5\n", "m.model:1:16: expected an unsigned integer, found '2.5'"},
        {"copy_engines = -2\n", "m.model:1:16: expected an unsigned integer, found '-2'"},
        /* strtoul takes a leading sign, an integer field does not */
        {"copy_engines = +2\n", "m.model:1:16: expected an unsigned integer, found '+2'"},
        /* an unsigned integer past 32 bits says its range (it said
         * "expected an unsigned integer", which it is) */
        {"max_ranks = 4294967296\n",
         "m.model:1:13: expected an unsigned integer at most 4294967295, found '4294967296'"},
        {"split_wait_mib = 99999999999999999999999\n",
         "m.model:1:18: expected an unsigned integer at most 4294967295, found "
         "'99999999999999999999999'"},
        /* the CUDA backend lowers nothing below 3: refused here, at the
         * value, where it parsed and only predict refused it */
        {"max_memops_per_batch = 0\n",
         "m.model:1:24: expected an unsigned integer at least 3: the CUDA backend needs 3 or "
         "more (a memop call that waits carries the watchdog's writes besides the wait: eagerly "
         "a progress write, captured an enter and an exit write), found '0'"},
        {"max_memops_per_batch = 2\n",
         "m.model:1:24: expected an unsigned integer at least 3: the CUDA backend needs 3 or "
         "more (a memop call that waits carries the watchdog's writes besides the wait: eagerly "
         "a progress write, captured an enter and an exit write), found '2'"},
        {"# a machine\nmax_memops_per_batch =   1 # too few\n",
         "m.model:2:26: expected an unsigned integer at least 3: the CUDA backend needs 3 or "
         "more (a memop call that waits carries the watchdog's writes besides the wait: eagerly "
         "a progress write, captured an enter and an exit write), found '1'"},
        /* cuStreamBatchMemOp takes at most 255 ops (CES_CUDA_MAX_MEMOPS): a
         * larger value predicted fewer calls than the backend issues */
        {"max_memops_per_batch = 256\n",
         "m.model:1:24: expected an unsigned integer at most 255: cuStreamBatchMemOp takes at "
         "most 255 ops, found '256'"},
        /* per_graph_copy_us above per_copy_us, which predict silently
         * capped: at the per_graph_copy_us line, after the whole file */
        {"per_graph_copy_us = 3\nper_copy_us = 2\n",
         "m.model:1:1: expected per_graph_copy_us at most per_copy_us: per_graph_copy_us = 3 is "
         "above per_copy_us = 2"},
        {"per_graph_copy_us = 6 # above the table's 5.2\n",
         "m.model:1:1: expected per_graph_copy_us at most per_copy_us: per_graph_copy_us = 6 is "
         "above per_copy_us = 5.2 (the kind's)"},
        /* a link slower than one copy over it: at the link_gbps line,
         * wherever peer_copy_gbps is */
        {"link_gbps = 300\n",
         "m.model:1:1: expected link_gbps at least peer_copy_gbps: link_gbps = 300 is below "
         "peer_copy_gbps = 394 (the kind's)"},
        {"copy_engines = 2\nlink_gbps = 450\npeer_copy_gbps = 451\n",
         "m.model:2:1: expected link_gbps at least peer_copy_gbps: link_gbps = 450 is below "
         "peer_copy_gbps = 451"},
        /* 64-bit flags without 64-bit memops: at the later of the two */
        {"flag_widths = 32,64\nhas_64bit_memops = 0\n",
         "m.model:2:1: expected has_64bit_memops = 1 with 64-bit flags: flag_widths has 64 but "
         "has_64bit_memops is 0"},
        {"has_64bit_memops = 0\ncopy_engines = 2\n  flag_widths = 64\n",
         "m.model:3:3: expected has_64bit_memops = 1 with 64-bit flags: flag_widths has 64 but "
         "has_64bit_memops is 0"},
        {"has_64bit_memops = 0\n",
         "m.model:1:1: expected has_64bit_memops = 1 with 64-bit flags: flag_widths (the kind's) "
         "has 64 but has_64bit_memops is 0"},
        {"max_ranks = 0\n", "m.model:1:13: expected an unsigned integer > 0, found '0'"},
        {"flag_widths = 16\n", "m.model:1:15: expected 32, 64 or 32,64, found '16'"},
        {"kind = a100\n", "m.model:1:8: expected a known machine kind (h200), found 'a100'"},
        /* a name as long as the kind's array (32 bytes, no room for its NUL)
         * is no kind either */
        {"kind = abcdefghijabcdefghijabcdefghijab\n",
         "m.model:1:8: expected a known machine kind (h200), found "
         "'abcdefghijabcdefghijabcdefghijab'"},
        {"copy_engines = 1\nkind = h200\n",
         "m.model:2:1: expected `kind` before every other field, found 'kind'"},
        /* a second kind was "expected before every other field" */
        {"kind = h200\nkind = h200\n",
         "m.model:2:1: `kind` given twice (first on line 1), found 'kind'"},
        /* a yes/no field took any number */
        {"has_64bit_memops = 7\n", "m.model:1:20: expected 0 or 1, found '7'"},
        {"has_wait_nor = 2\n", "m.model:1:16: expected 0 or 1, found '2'"},
        /* a byte order mark is skipped (it was the error's "found"), the
         * columns count from after it */
        {"\xef\xbb\xbfper_copy_us = x\n", "m.model:1:15: expected a number >= 0, found 'x'"},
        /* a field given twice: the later line silently won */
        {"per_copy_us = 1\n# again\n  per_copy_us = 2\n",
         "m.model:3:3: `per_copy_us` given twice (first on line 1), found 'per_copy_us'"},
        {"kind = h200\nflag_widths = 32\nflag_widths = 64\n",
         "m.model:3:1: `flag_widths` given twice (first on line 2), found 'flag_widths'"},
        /* a byte that is no printable ASCII is named by its value (it went
         * into the message as it was: a lone UTF-8 lead byte, 0xff) */
        {"per_copy_us = \xff\n", "m.model:1:15: expected a value, found byte 0xff"},
        {"per_copy_us = 5 \xc3\xa9\n",
         "m.model:1:17: expected the end of the line, found byte 0xc3"},
        {"\x01per_copy_us = 5\n", "m.model:1:1: expected a field name, found byte 0x01"},
        /* DEL is no printable ASCII either */
        {"per_copy_us = 5\x7f\n", "m.model:1:16: expected the end of the line, found byte 0x7f"},
        /* a number too long for the parser says so: it said "expected a
         * number", which 0.000...01 is */
        {"per_copy_us = 0.00000000000000000000000000000000000000000000000000000000000001\n",
         "m.model:1:15: expected a number of at most 63 characters, found "
         "'0.0000000000000000000000000000000000000000000000...'"},
        /* a long word is cut with "..." (it was cut at 40 bytes, unmarked) */
        {"per_copy_us = abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij\n",
         "m.model:1:15: expected a number >= 0, found "
         "'abcdefghijabcdefghijabcdefghijabcdefghijabcdefgh...'"},
    };
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_model m;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(parse(ctx, cases[i].text, &m), CES_ERR_PARSE);
        assert_string_equal(ces_ctx_last_error(ctx), cases[i].msg);
    }
    /* a NUL byte, said where it is, in a comment too (a file is read no
     * further than the read that held it) */
    assert_int_equal(ces_model_parse(ctx, "per_copy_us = 5\0\n", 17, "m.model", NULL, &m),
                     CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx), "m.model:1:16: a NUL byte: a model file is text "
                                                 "(is this a binary file?)");
    assert_int_equal(ces_model_parse(ctx, "\xef\xbb\xbfkind = h200\n# x\0y\nmax_ranks = 1\n", 35,
                                     "m.model", NULL, &m),
                     CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx), "m.model:2:4: a NUL byte: a model file is text "
                                                 "(is this a binary file?)");
    assert_int_equal(ces_model_parse(ctx, "x", 1, NULL, NULL, &m), CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx), "<model>:1:2: expected '=', found the end of the line");
    /* the text ends at len, whatever lies after it */
    assert_int_equal(ces_model_parse(ctx, "x=1", 1, NULL, NULL, &m), CES_ERR_PARSE);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "<model>:1:2: expected '=', found the end of the line");
    ces_test_ctx_end(ctx, &st);
}

static void test_round_trip(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_model m = *ces_model_find("h200"), back;
    char *text = NULL;
    size_t len = 0;

    (void)state;
    m.per_copy_us = 0.1 + 0.2; /* needs 17 digits */
    m.per_graph_copy_us = 0.25; /* at most per_copy_us */
    m.copy_engines = 5;
    m.flag_widths = CES_MODEL_W64;
    assert_int_equal(ces_model_print(ctx, &m, &text, &len), CES_OK);
    assert_int_equal(strlen(text), len);
    assert_non_null(strstr(text, "kind = h200\nflag_widths = 64 # bits\n"
                                 "max_memops_per_batch = 255 # ops\n"));
    assert_non_null(strstr(text, "\npeer_copy_gbps = 394 # GB/s\n"));
    assert_non_null(strstr(text, "\nper_copy_us = 0.30000000000000004 # us\n"));
    assert_int_equal(ces_model_parse(ctx, text, len, NULL, NULL, &back), CES_OK);
    assert_memory_equal(&m, &back, sizeof(m));
    ces_free(ctx, text);
    ces_test_ctx_end(ctx, &st);
}

/* A cost nearer 0 than a normal double (a subnormal one) is a number a
 * double holds: printed, it parses back (the parser refused it as out of
 * range, so ces_model_print wrote a file that did not load). */
static void test_round_trip_subnormal(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_model m = *ces_model_find("h200"), back;
    char *text = NULL;
    size_t len = 0;

    (void)state;
    m.per_copy_us = 4.9406564584124654e-324; /* the smallest above 0 */
    m.per_graph_copy_us = 0.0;                /* at most per_copy_us */
    m.event_us = 1e-310;
    assert_int_equal(ces_model_print(ctx, &m, &text, &len), CES_OK);
    assert_non_null(strstr(text, "\nper_copy_us = 4.94066e-324 # us\n"));
    assert_non_null(strstr(text, "\nevent_us = 1e-310 # us\n"));
    assert_int_equal(ces_model_parse(ctx, text, len, NULL, NULL, &back), CES_OK);
    assert_memory_equal(&m, &back, sizeof(m));
    ces_free(ctx, text);
    ces_test_ctx_end(ctx, &st);
}

/* A model no file can hold is refused, nothing written: its text would
 * not parse (an unknown kind, a zero engine count), parse to another model
 * (flag_widths 0 printed as 32) or read past the kind (no NUL). */
/* ces_model_print refuses m with exactly `msg`, writing nothing. */
static void print_refused(struct ces_ctx *ctx, const struct ces_model *m, const char *msg)
{
    char *text = NULL;

    assert_int_equal(ces_model_print(ctx, m, &text, NULL), CES_ERR_INVALID);
    assert_null(text);
    assert_string_equal(ces_ctx_last_error(ctx), msg);
}

static void test_print_refuses(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    const struct ces_model *h200 = ces_model_find("h200");
    struct ces_model m;

    (void)state;
    m = *h200;
    snprintf(m.kind, sizeof(m.kind), "h100");
    print_refused(ctx, &m, "model print: the model's kind 'h100' is no built-in kind, which a "
                           "model file's `kind` must name");
    m = *h200;
    memset(m.kind, 'x', sizeof(m.kind));
    print_refused(ctx, &m, "model print: the model's kind is not a NUL-terminated string of at "
                           "most 31 bytes");
    m = *h200;
    m.flag_widths = 0;
    print_refused(ctx, &m, "model print: the model's flag_widths is 0: expected CES_MODEL_W32, "
                           "CES_MODEL_W64 or both");
    m = *h200;
    m.batch_engines = 0;
    print_refused(ctx, &m, "model print: the model's batch_engines is 0: expected 1 or more");
    m = *h200;
    m.graph_copies_serial = 2;
    print_refused(ctx, &m, "model print: the model's graph_copies_serial is 2: expected 0 or 1");
    /* the mode fields, which no file holds, as the prediction refuses them */
    for (int k = 0; k < 2; k++) {
        m = *h200;
        *(k == 0 ? &m.slow_waits : &m.unlinked) = 2;
        print_refused(ctx, &m,
                      k == 0 ? "model print: the model's slow_waits is 2: expected 0 or 1"
                             : "model print: the model's unlinked is 2: expected 0 or 1");
    }
    m = *h200;
    m.link_gbps = 300;
    print_refused(ctx, &m, "model print: the model's link_gbps is 300, below its peer_copy_gbps "
                           "394: expected at least peer_copy_gbps (one copy crosses the link)");
    m = *h200;
    m.peer_copy_gbps = 0;
    print_refused(ctx, &m, "model print: the model's peer_copy_gbps is 0: expected a bandwidth "
                           "of 1e-9..1e9");
    /* a value just out of range is named as it is (%g rounded it into the
     * range: "is 1e+09: expected a number of 0..1e9") */
    m = *h200;
    m.per_copy_us = 1000000001.0;
    print_refused(ctx, &m, "model print: the model's per_copy_us is 1000000001: expected a number "
                           "of 0..1e9");
    m = *h200;
    m.local_copy_gbps = 9.9999999e-10;
    print_refused(ctx, &m, "model print: the model's local_copy_gbps is 9.9999999e-10: expected "
                           "a bandwidth of 1e-9..1e9");
    /* what a model file can no longer hold (ces_model_parse refuses it) */
    m = *h200;
    m.max_memops_per_batch = 256;
    print_refused(ctx, &m, "model print: the model's max_memops_per_batch is 256: expected at most "
                           "255: cuStreamBatchMemOp takes at most 255 ops");
    m = *h200;
    m.max_memops_per_batch = 2;
    print_refused(ctx, &m, "model print: the model's max_memops_per_batch is 2: expected at least "
                           "3: the CUDA backend needs 3 or more (a memop call that waits carries "
                           "the watchdog's writes besides the wait: eagerly a progress write, "
                           "captured an enter and an exit write)");
    m = *h200;
    m.per_graph_copy_us = m.per_copy_us + 0.5;
    print_refused(ctx, &m, "model print: the model's per_graph_copy_us is 5.7, above its "
                           "per_copy_us 5.2: expected at most per_copy_us");
    m = *h200;
    m.has_64bit_memops = 0;
    print_refused(ctx, &m, "model print: the model's flag_widths has 64 but has_64bit_memops is "
                           "0: expected has_64bit_memops = 1 for 64-bit flags");
    ces_test_ctx_end(ctx, &st);
}

static void test_load(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_model m;
    char *dir = ces_test_tmpdir(), path[128];
    FILE *fp;

    (void)state;
    snprintf(path, sizeof(path), "%s/m.model", dir);
    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("kind = h200\nevent_us = 0.5\nbad\n", fp);
    fclose(fp);
    assert_int_equal(ces_model_load(ctx, path, NULL, &m), CES_ERR_PARSE);
    {
        char want[256];

        snprintf(want, sizeof(want), "%s:3:4: expected '=', found the end of the line", path);
        assert_string_equal(ces_ctx_last_error(ctx), want);
    }
    fp = fopen(path, "w");
    fputs("event_us = 0.5\n", fp);
    fclose(fp);
    assert_int_equal(ces_model_load(ctx, path, NULL, &m), CES_OK);
    assert_true(m.event_us == 0.5);
    /* a NUL byte in a comment, the rest of the file past the read that
     * held it: said, not a model of the lines read */
    fp = fopen(path, "w");
    fputs("kind = h200 # c", fp);
    fputc('\0', fp);
    for (int i = 0; i < 400; i++)
        fputs("\n# ..................................", fp);
    fputs("\nmax_ranks = 1\n", fp);
    fclose(fp);
    assert_int_equal(ces_model_load(ctx, path, NULL, &m), CES_ERR_PARSE);
    {
        char want[256];

        snprintf(want, sizeof(want), "%s:1:16: a NUL byte: a model file is text (is this a "
                 "binary file?)", path);
        assert_string_equal(ces_ctx_last_error(ctx), want);
    }
    ces_test_remove_in(dir, "m.model\0");
    assert_int_equal(ces_model_load(ctx, "/nonexistent/x.model", NULL, &m), CES_ERR_IO);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "/nonexistent/x.model: cannot open: No such file or directory");
    assert_int_equal(ces_model_load(ctx, "", NULL, &m), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "'': a model file's path is empty");
    /* "-" is no file here (a schedule may be what standard input holds):
     * it was opened as a file named "-", "No such file or directory" */
    assert_int_equal(ces_model_load(ctx, "-", NULL, &m), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx),
                        "-: a model is read from a file by name, not from standard input");
    ces_test_ctx_end(ctx, &st);
}

static int print_body(struct ces_ctx *ctx, void *arg)
{
    char *text = NULL;
    int rc = ces_model_print(ctx, (const struct ces_model *)arg, &text, NULL);

    ces_free(ctx, text);
    return rc;
}

static void test_print_alloc_failures(void **state)
{
    (void)state;
    assert_true(ces_test_alloc_failures(print_body, (void *)ces_model_find("h200")) >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overrides),   cmocka_unit_test(test_base),
        cmocka_unit_test(test_errors),      cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_round_trip_subnormal),
        cmocka_unit_test(test_print_refuses),
        cmocka_unit_test(test_load),        cmocka_unit_test(test_print_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
