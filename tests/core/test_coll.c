/*
 * tests/core/test_coll.c - the builder driver: defaults, the checks every
 * collective shares (exact messages), normalization of zero fields, and the
 * program path.
 */
#include "coll_check.h"

static void test_defaults(void **state)
{
    struct ces_coll_params p;

    (void)state;
    memset(&p, 0xff, sizeof(p));
    ces_coll_params_init(&p, CES_COLL_GATHER);
    assert_int_equal(p.coll, CES_COLL_GATHER);
    assert_int_equal(p.proto, CES_PROTO_MONO);
    assert_int_equal(p.ranks, 2);
    assert_int_equal(p.bytes, 1024);
    assert_int_equal(p.iterations, 1);
    assert_int_equal(p.phase, CES_PHASE_EAGER);
    assert_int_equal(p.root, 0);
    assert_int_equal(p.npairs, 0);
    assert_int_equal(p.chunks, 4);
    assert_int_equal(p.slots, 2);
    assert_int_equal(p.flags, 0);
    assert_int_equal(p.first_iter, 1);
    ces_coll_params_init(NULL, 0); /* no crash */
}

static void test_default_text(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p;
    char *text;

    (void)state;
    ces_coll_params_init(&p, CES_COLL_ALLTOALL);
    text = coll_text(ctx, &p);
    assert_string_equal(text, "cesync 1\nranks 2\nstreams 1\nlet C = 512\n"
                              "buffer send 1024\nbuffer recv 1024\n"
                              "signal ready u64 1\nsignal complete u64 1\nphase eager x1\n"
                              "r* : produce send[0:$n*$C]\n"
                              "r* : write ready[0] = $i\n"
                              "r* over p : wait ready[0]@$p >= $i\n"
                              "r* : batch\n"
                              "r* over p* : copy send[$p*$C:($p+1)*$C] -> "
                              "recv[$r*$C:($r+1)*$C]@$p\n"
                              "r* : end\n"
                              "r* : write complete[0] = $i\n"
                              "r* over p : wait complete[0]@$p >= $i\n"
                              "r* over p* : consume recv[$p*$C:($p+1)*$C] == "
                              "send[$r*$C:($r+1)*$C]@$p\n");
    ces_free(ctx, text);
    ces_test_ctx_end(ctx, &st);
}

/* chunks, slots and first_iter of 0 mean their defaults: 4 chunks, 2 slots
 * (with credit at most the chunks), the first iteration 1. */
static void test_zero_means_default(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p, q;
    char *a, *b;

    (void)state;
    ces_coll_params_init(&p, CES_COLL_SENDRECV);
    p.ranks = 3;
    q = p;
    q.chunks = 0;
    q.slots = 0;
    q.first_iter = 0;
    a = coll_text(ctx, &p);
    b = coll_text(ctx, &q);
    assert_string_equal(a, b);
    ces_free(ctx, a);
    ces_free(ctx, b);
    /* one chunk: two slots with nccl and mono, one with credit, which
     * refuses more slots than chunks (2 was refused as if the caller had
     * asked for them) */
    for (uint32_t pr = CES_PROTO_NCCL; pr <= CES_PROTO_CREDIT; pr++) {
        p.proto = pr;
        p.chunks = 1;
        p.slots = pr == CES_PROTO_CREDIT ? 1 : 2;
        q = p;
        q.slots = 0;
        a = coll_text(ctx, &p);
        b = coll_text(ctx, &q);
        assert_string_equal(a, b);
        ces_free(ctx, a);
        ces_free(ctx, b);
    }
    ces_test_ctx_end(ctx, &st);
}

static void test_common_errors(void **state)
{
    struct ces_coll_params p;

    (void)state;
    ces_coll_params_init(&p, CES_COLL_ALLGATHER);
    p.coll = CES_COLL_COUNT;
    coll_error(&p, CES_ERR_INVALID, "unknown collective #7");
    ces_coll_params_init(&p, CES_COLL_ALLGATHER);
    p.proto = 9;
    coll_error(&p, CES_ERR_INVALID, "allgather: unknown sync protocol #9");
    p.proto = CES_PROTO_COUNT;
    coll_error(&p, CES_ERR_INVALID, "allgather: unknown sync protocol #4");
    ces_coll_params_init(&p, CES_COLL_ALLGATHER);
    p.ranks = 0;
    coll_error(&p, CES_ERR_INVALID, "allgather: ranks must be 1..1024, not 0");
    p.ranks = 1025;
    coll_error(&p, CES_ERR_INVALID, "allgather: ranks must be 1..1024, not 1025");
    p.ranks = 2;
    p.bytes = 0;
    coll_error(&p, CES_ERR_INVALID, "allgather: bytes must be 1..281474976710656 (2^48), not 0");
    p.bytes = CES_MAX_BYTES + 1;
    coll_error(&p, CES_ERR_INVALID,
               "allgather: bytes must be 1..281474976710656 (2^48), not 281474976710657");
    p.bytes = CES_MAX_BYTES;
    coll_error(&p, CES_ERR_INVALID,
               "allgather: ranks x bytes (2 x 281474976710656) exceeds 2^48 bytes");
    p.bytes = 8;
    p.iterations = 0;
    coll_error(&p, CES_ERR_INVALID, "allgather: iterations must be at least 1, not 0");
    p.iterations = 1;
    p.phase = 2;
    coll_error(&p, CES_ERR_INVALID, "allgather: phase must be eager (0) or graph (1), not 2");
    p.phase = CES_PHASE_EAGER;
    p.first_iter = (UINT64_C(1) << 32) + 1;
    coll_error(&p, CES_ERR_INVALID, "allgather: first_iter must be 1..4294967296, not 4294967297");
    p.first_iter = 1;
    p.proto = CES_PROTO_MONO;
    p.phase = CES_PHASE_GRAPH;
    coll_error(&p, CES_ERR_UNSUPPORTED,
               "allgather: mono is not graph-safe: its counters grow with $i, which a graph "
               "replay freezes; use CES_PROTO_CREDIT for graph phases");
    /* the library names the protocol as its callers choose it, by the
     * enum's name (the command line's --sync is the tool's to say) */
    p = coll_params(CES_COLL_BARRIER, CES_PROTO_PULL, 2, 8, 1, CES_PHASE_EAGER);
    coll_error(&p, CES_ERR_UNSUPPORTED,
               "barrier: pull needs two barriers per iteration (a rank writes its flag for a "
               "peer again only after a later barrier shows that the peer has reset it); use "
               "CES_PROTO_CREDIT");
}

static void test_null_arguments(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p;
    char *text = NULL;
    struct ces_prog *prog = NULL;
    struct ces_graph *g = NULL;

    (void)state;
    ces_coll_params_init(&p, CES_COLL_BARRIER);
    assert_int_equal(ces_coll_source(NULL, &p, &text, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_coll_source(ctx, NULL, &text, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_coll_source: NULL argument");
    assert_int_equal(ces_coll_source(ctx, &p, NULL, NULL), CES_ERR_INVALID);
    assert_int_equal(ces_coll_program(ctx, &p, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_coll_program: NULL argument");
    assert_int_equal(ces_coll_build(ctx, &p, NULL), CES_ERR_INVALID);
    assert_string_equal(ces_ctx_last_error(ctx), "ces_coll_build: NULL argument");
    assert_int_equal(ces_coll_program(NULL, &p, &prog), CES_ERR_INVALID);
    assert_int_equal(ces_coll_build(NULL, &p, &g), CES_ERR_INVALID);
    ces_test_ctx_end(ctx, &st);
}

/* ces_coll_program parses exactly the source text; ces_coll_build equals
 * expanding it. */
static void test_program_and_build(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p;
    struct ces_prog *prog = NULL;
    struct ces_graph *g = NULL, *h = NULL;
    char *text, *printed = NULL;

    (void)state;
    for (uint32_t c = 0; c < CES_COLL_COUNT; c++) {
        ces_coll_params_init(&p, c);
        p.ranks = 3;
        p.bytes = 3 * 64;
        p.iterations = 2;
        p.proto = CES_PROTO_CREDIT;
        p.phase = CES_PHASE_GRAPH;
        text = coll_text(ctx, &p);
        assert_int_equal(ces_coll_program(ctx, &p, &prog), CES_OK);
        assert_int_equal(ces_prog_print(ctx, prog, &printed, NULL), CES_OK);
        assert_string_equal(printed, text);
        assert_int_equal(ces_prog_expand(ctx, prog, &h), CES_OK);
        g = coll_graph(ctx, &p);
        assert_true(ces_graph_equal(g, h));
        ces_graph_destroy(g);
        ces_graph_destroy(h);
        ces_prog_destroy(prog);
        ces_free(ctx, printed);
        ces_free(ctx, text);
    }
    ces_test_ctx_end(ctx, &st);
}

/* Every collective, protocol and phase it supports builds and round-trips,
 * for several rank counts. */
static void test_all_combinations(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);

    (void)state;
    for (uint32_t c = 0; c < CES_COLL_COUNT; c++) {
        for (uint32_t pr = 0; pr < CES_PROTO_COUNT; pr++) {
            for (uint32_t ph = 0; ph < 2; ph++) {
                for (uint32_t n = 2; n <= 8; n += 3) {
                    struct ces_coll_params p = coll_params(c, pr, n, 120 * n, 2, ph);
                    struct ces_graph *g = NULL;
                    char *text = NULL;
                    int rc = ces_coll_source(ctx, &p, &text, NULL);
                    /* mono grows with $i; graph sendrecv is credit's alone;
                     * pull needs two barriers per iteration, sendrecv has none */
                    int want = ((pr == CES_PROTO_MONO ||
                                 (pr == CES_PROTO_NCCL && c == CES_COLL_SENDRECV)) &&
                                ph == CES_PHASE_GRAPH) ||
                                       (pr == CES_PROTO_PULL &&
                                        (c == CES_COLL_BARRIER || c == CES_COLL_SENDRECV))
                                   ? CES_ERR_UNSUPPORTED
                                   : CES_OK;

                    p.root = n - 1;
                    assert_int_equal(rc, want);
                    if (rc != CES_OK)
                        continue;
                    coll_roundtrip(ctx, text);
                    ces_free(ctx, text);
                    g = coll_graph(ctx, &p);
                    assert_int_equal(ces_graph_iterations(g), 2);
                    ces_graph_destroy(g);
                }
            }
        }
    }
    ces_test_ctx_end(ctx, &st);
}

/* The model checker's verdict on every collective, protocol and phase it
 * supports: OK, except nccl's graph barrier (one barrier per replay, so the
 * resets of one replay can erase the flags of the next: NCCL's odd-sync
 * replay race), which must HANG. */
static void test_checker_verdicts(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    unsigned checked = 0, hangs = 0;

    (void)state;
    for (uint32_t c = 0; c < CES_COLL_COUNT; c++) {
        for (uint32_t pr = 0; pr < CES_PROTO_COUNT; pr++) {
            for (uint32_t ph = 0; ph < 2; ph++) {
                struct ces_coll_params p = coll_params(c, pr, 3, 3 * 96, 2, ph);
                struct ces_check_opts o;
                struct ces_check_report *r = NULL;
                struct ces_graph *g = NULL;
                uint32_t want = c == CES_COLL_BARRIER && pr == CES_PROTO_NCCL &&
                                        ph == CES_PHASE_GRAPH
                                    ? CES_V_HANG
                                    : CES_V_OK;
                int rc;

                p.chunks = 3;
                rc = ces_coll_build(ctx, &p, &g);
                if (rc == CES_ERR_UNSUPPORTED)
                    continue; /* unsupported combinations: tested elsewhere */
                if (rc != CES_OK)
                    fail_msg("%s %s %s: %s", ces_coll_name((int)c), ces_proto_name((int)pr),
                             ph ? "graph" : "eager", ces_ctx_last_error(ctx));
                ces_check_opts_init(&o);
                o.max_seconds = 60;
                assert_int_equal(ces_check(ctx, g, &o, &r), CES_OK);
                if (ces_check_report_verdict(r) != want)
                    fail_msg("%s %s %s: verdict %u, expected %u", ces_coll_name((int)c),
                             ces_proto_name((int)pr), ph ? "graph" : "eager",
                             ces_check_report_verdict(r), want);
                checked++;
                hangs += want == CES_V_HANG;
                ces_check_report_destroy(r);
                ces_graph_destroy(g);
            }
        }
    }
    /* the 44 collective, protocol and phase triples the builders have */
    assert_int_equal(checked, 44);
    assert_int_equal(hangs, 1);
    ces_test_ctx_end(ctx, &st);
}

/* The bounds themselves build: first_iter 2^32 (I0 = 2^32 - 1) and, for
 * gather, ranks x bytes of exactly 2^48; mono's barrier value past the
 * first iteration is the global iteration written without a factor 1
 * (canonical: print(parse(text)) == text). */
static void test_bounds_build(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_MONO, 2, 1024, 1,
                                           CES_PHASE_EAGER);
    char *text;

    (void)state;
    p.first_iter = UINT64_C(1) << 32;
    text = coll_text(ctx, &p);
    assert_non_null(strstr(text, "\nlet I0 = 4294967295\n"));
    assert_non_null(strstr(text, "\nr* : write ready[0] = $i+$I0\n"
                                 "r* over p : wait ready[0]@$p >= $i+$I0\n"));
    coll_roundtrip(ctx, text);
    ces_free(ctx, text);
    p = coll_params(CES_COLL_GATHER, CES_PROTO_MONO, 4, CES_MAX_BYTES / 4, 1, CES_PHASE_EAGER);
    text = coll_text(ctx, &p);
    assert_non_null(strstr(text, "\nlet C = 70368744177664\nbuffer send 70368744177664\n"
                                 "buffer recv 281474976710656\n"));
    ces_free(ctx, text);
    ces_test_ctx_end(ctx, &st);
}

/* The text's first allocation failing: CES_ERR_NOMEM, naming the
 * collective. */
static void test_source_out_of_memory(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(CES_COLL_BARRIER, CES_PROTO_MONO, 2, 8, 1,
                                           CES_PHASE_EAGER);
    char *text = (char *)1;
    size_t len = 7;

    (void)state;
    st.fail_at = st.calls + 1;
    assert_int_equal(ces_coll_source(ctx, &p, &text, &len), CES_ERR_NOMEM);
    assert_null(text);
    assert_int_equal(len, 0);
    assert_string_equal(ces_ctx_last_error(ctx), "out of memory generating the barrier schedule");
    ces_test_ctx_end(ctx, &st);
}

/* Only the barrier runs nccl's eager iterations a phase each: alltoall's
 * 2^20 + 1 iterations are one phase, whose text is written (the bound on
 * phases is the barrier's alone), and which the expansion refuses past its
 * bound on ops with its own message, naming the collective as the file. */
static void test_expansion_names_collective(void **state)
{
    struct ces_test_alloc st;
    struct ces_ctx *ctx = ces_test_ctx(&st);
    struct ces_coll_params p = coll_params(CES_COLL_ALLTOALL, CES_PROTO_NCCL, 2, 1024,
                                           (UINT32_C(1) << 20) + 1, CES_PHASE_EAGER);
    struct ces_graph *g = (struct ces_graph *)1;
    char *text;

    (void)state;
    text = coll_text(ctx, &p);
    assert_non_null(strstr(text, "\nphase eager x1048577\n"));
    ces_free(ctx, text);
    assert_int_equal(ces_coll_build(ctx, &p, &g), CES_ERR_LIMIT);
    assert_null(g);
    assert_string_equal(ces_ctx_last_error(ctx), "alltoall:17:1: the schedule expands to more "
                                                "than 16777216 ops: use a graph phase or fewer "
                                                "iterations");
    ces_test_ctx_end(ctx, &st);
}

/* Every allocation of generating and parsing each collective may fail. */
static void test_alloc_failures(void **state)
{
    (void)state;
    for (uint32_t c = 0; c < CES_COLL_COUNT; c++) {
        struct ces_coll_params p = coll_params(c, CES_PROTO_CREDIT, 3, 192, 2, CES_PHASE_EAGER);

        assert_true(ces_test_alloc_failures(coll_program_body, &p) > 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),          cmocka_unit_test(test_default_text),
        cmocka_unit_test(test_zero_means_default), cmocka_unit_test(test_common_errors),
        cmocka_unit_test(test_null_arguments),    cmocka_unit_test(test_program_and_build),
        cmocka_unit_test(test_all_combinations), cmocka_unit_test(test_alloc_failures),
        cmocka_unit_test(test_checker_verdicts), cmocka_unit_test(test_bounds_build),
        cmocka_unit_test(test_source_out_of_memory),
        cmocka_unit_test(test_expansion_names_collective),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
