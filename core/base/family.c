/* Completing a backend's kernel family from the family's portable defaults (backend.h). */
#include "backend.h"

#include <string.h>

typedef void (*ps__fnptr)(void);

const ps__family_header *ps__family(ps__backend *be, ps__family_id id,
                                    const ps__family_header *defaults) {
    if (be->family[id]) return be->family[id];
    ps__family_header *table = malloc(defaults->struct_size);
    if (!table) return defaults; /* correct, if slower; the merge is tried again next time */
    memcpy(table, defaults, defaults->struct_size);

    const ps__family_header *own = be->ops ? be->ops->family[id] : NULL;
    if (own && own->abi_version == defaults->abi_version) {
        size_t end =
            own->struct_size < defaults->struct_size ? own->struct_size : defaults->struct_size;
        for (size_t at = sizeof *table; at + sizeof(ps__fnptr) <= end; at += sizeof(ps__fnptr)) {
            ps__fnptr fn;
            memcpy(&fn, (const char *)own + at, sizeof fn);
            if (fn) memcpy((char *)table + at, &fn, sizeof fn);
        }
    }
    return be->family[id] = table;
}

void ps__families_release(ps__backend *be) {
    for (int id = 0; id < PS__FAMILIES; id++) {
        free((void *)be->family[id]);
        be->family[id] = NULL;
    }
}
