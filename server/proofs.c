/* proofs.c - wins proven by one worker, passed on to the others (see proofs.h). */
#include "server/proofs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    Position pos;
    int len;
    Move line[ENGINE_MAX_PV];
} SharedProof;

struct ProofShare {
    pthread_mutex_t mu;
    uint64_t next; /* entries ever put in; entry k is ring[k % PROOF_SHARE_ENTRIES] */
    SharedProof ring[PROOF_SHARE_ENTRIES];
};

ProofShare *proofs_new(void)
{
    ProofShare *ps = calloc(1, sizeof *ps);
    if (ps) pthread_mutex_init(&ps->mu, NULL);
    return ps;
}

void proofs_free(ProofShare *ps)
{
    if (!ps) return;
    pthread_mutex_destroy(&ps->mu);
    free(ps);
}

void proofs_import(ProofShare *ps, Engine *e, uint64_t *seen)
{
    pthread_mutex_lock(&ps->mu);
    uint64_t k = *seen;
    if (ps->next > PROOF_SHARE_ENTRIES && k < ps->next - PROOF_SHARE_ENTRIES) k = ps->next - PROOF_SHARE_ENTRIES;
    for (; k < ps->next; k++) {
        const SharedProof *p = &ps->ring[k % PROOF_SHARE_ENTRIES];
        engine_add_proof(e, &p->pos, p->line, p->len);
    }
    *seen = ps->next;
    pthread_mutex_unlock(&ps->mu);
}

void proofs_export(ProofShare *ps, const Engine *e, const Position *p)
{
    Move line[ENGINE_MAX_PV];
    int len = engine_last_proof(e, line);
    if (len <= 0) return;
    pthread_mutex_lock(&ps->mu);
    SharedProof *s = &ps->ring[ps->next % PROOF_SHARE_ENTRIES];
    s->pos = *p;
    s->len = len;
    memcpy(s->line, line, sizeof(Move) * (size_t)len);
    ps->next++;
    pthread_mutex_unlock(&ps->mu);
}
