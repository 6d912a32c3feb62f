/* A backend's block sizes and "from this order on" thresholds as data (its block_size entry,
 * BLIS's way): rows of (algorithm, precision, from order, value). Header only, for the modules. */
#ifndef PS_CORE_SIZE_RULES_H
#define PS_CORE_SIZE_RULES_H

#include "../backend.h"

#define PS__ANY_DTYPE (-1)

typedef struct ps__size_rule {
    ps__algo algo;
    int dt;     /* a ps__dtype, or PS__ANY_DTYPE */
    int from_n; /* the row holds from this order on */
    int value;
} ps__size_rule;

/* The value of the row for (algo, dt) with the largest from_n <= n; 0 when none holds. */
static inline int ps__size_rule_find(const ps__size_rule *rules, size_t count, ps__algo algo,
                                     ps__dtype dt, int n) {
    int value = 0, best = -1;
    for (size_t i = 0; i < count; i++) {
        const ps__size_rule *r = &rules[i];
        if (r->algo == algo && (r->dt == PS__ANY_DTYPE || r->dt == (int)dt) && r->from_n <= n &&
            r->from_n > best) {
            best = r->from_n;
            value = r->value;
        }
    }
    return value;
}

#endif
