/*
 * proofs.h - wins proven by one worker, passed on to the others.
 *
 * Each worker's engine keeps the wins its threat solver proved
 * (keep_proofs) and answers any later position on such a line from the
 * proof. An engine belongs to one thread, so the workers share what they
 * prove through this ring: after a search a worker puts in the win it just
 * proved (its position and line), and before a search it hands its engine
 * every win put in since its last look. The newest PROOF_SHARE_ENTRIES
 * stay; a worker that falls further behind misses the older ones. Safe
 * from any thread.
 */
#ifndef GOMOKUD_PROOFS_H
#define GOMOKUD_PROOFS_H

#include <stdint.h>

#include "engine/engine.h"

#define PROOF_SHARE_ENTRIES 64

typedef struct ProofShare ProofShare;

/* NULL when memory is short. */
ProofShare *proofs_new(void);
void proofs_free(ProofShare *ps);

/* Gives e every win put in since *seen (a worker's own counter, 0 at
 * first) and moves *seen on. */
void proofs_import(ProofShare *ps, Engine *e, uint64_t *seen);

/* Puts in the win e's last search of position p proved, if any. */
void proofs_export(ProofShare *ps, const Engine *e, const Position *p);

#endif
