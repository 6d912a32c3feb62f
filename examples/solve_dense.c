/* Solve a 3 x 3 system on the best available backend (PORTSOLVE_BACKEND picks another). */
#include <portsolve.h>
#include <stdio.h>

int main(void) {
    ps_context *ctx;
    if (ps_context_create(&ctx, NULL) != PS_SUCCESS) { /* NULL: take the environment */
        fprintf(stderr, "no backend: %s\n", ps_last_create_error());
        return 1;
    }
    double A[9] = {4, 1, 0, 2, 5, 1, 0, -1, 6}; /* column-major */
    double b[3] = {6, 4, 13};                   /* = A * (1, 1, 2) */
    int ipiv[3];
    ps_status st = ps_dgesv(ctx, 3, 1, A, 3, ipiv, b, 3);
    if (st != PS_SUCCESS) {
        fprintf(stderr, "%s: %s\n", ps_status_string(st), ps_context_last_error(ctx));
        ps_context_destroy(ctx);
        return 1;
    }
    printf("%s on %s: x = %g %g %g\n", ps_context_backend_name(ctx), ps_context_device_name(ctx),
           b[0], b[1], b[2]);
    ps_context_destroy(ctx);
    return 0;
}
