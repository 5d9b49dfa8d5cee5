/*
 * backend/sim/backend.c - the "sim" entry of the backend table: prepare
 * keeps the graph and a copy of the check options (struct ces_check_opts,
 * or NULL for the defaults), launch runs ces_check to the end, poll hands
 * back the verdict bits.
 */
#include "internal.h"

#include <string.h>

struct sim_backend_state {
    struct ces_ctx *ctx;
    const struct ces_graph *g;
    struct ces_check_opts opts;
    struct ces_check_report *report;
    int rc;
    bool ran;
};

static int sim_probe(struct ces_ctx *ctx)
{
    (void)ctx;
    return CES_OK; /* the checker runs on any CPU */
}

static int sim_prepare(struct ces_ctx *ctx, const struct ces_graph *g, const void *opts,
                       void **state)
{
    struct sim_backend_state *s;

    if (ctx == NULL)
        return CES_ERR_INVALID;
    if (g == NULL || state == NULL)
        return ces_ctx_error(ctx, CES_ERR_INVALID, "the sim backend's prepare: NULL argument");
    s = ces_malloc(ctx, sizeof(*s));
    if (s == NULL)
        return ces_ctx_error(ctx, CES_ERR_NOMEM, "out of memory preparing the checker");
    memset(s, 0, sizeof(*s));
    s->ctx = ctx;
    s->g = g;
    if (opts != NULL)
        s->opts = *(const struct ces_check_opts *)opts;
    else
        ces_check_opts_init(&s->opts);
    *state = s;
    return CES_OK;
}

static int sim_launch(void *state)
{
    struct sim_backend_state *s = state;

    if (s == NULL)
        return CES_ERR_INVALID;
    ces_check_report_destroy(s->report);
    s->report = NULL;
    s->rc = ces_check(s->ctx, s->g, &s->opts, &s->report);
    s->ran = true;
    return s->rc;
}

static int sim_poll(void *state, uint32_t *verdict)
{
    struct sim_backend_state *s = state;

    if (s == NULL || verdict == NULL)
        return CES_ERR_INVALID;
    if (!s->ran)
        return 1;
    if (s->rc != CES_OK)
        return s->rc;
    *verdict = ces_check_report_verdict(s->report);
    return CES_OK;
}

static void sim_destroy(void *state)
{
    struct sim_backend_state *s = state;

    if (s == NULL)
        return;
    ces_check_report_destroy(s->report);
    ces_free(s->ctx, s);
}

const struct ces_backend_ops ces_sim_backend = {CES_BACKEND_ABI_VERSION, "sim", sim_probe,
                                                sim_prepare, sim_launch, sim_poll, sim_destroy};
