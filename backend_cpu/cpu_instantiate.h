/* Instantiates the plain-loop template PS_CPU_TEMPLATE (a header written against REAL, SUFFIX
 * and SAFE_MIN, LAPACK's sfmin) for double (suffix d) and float (suffix s). Included once per
 * template, so no include guard. */
#include <float.h>

#define REAL     double
#define SUFFIX   d
#define SAFE_MIN DBL_MIN
#include PS_CPU_TEMPLATE
#undef REAL
#undef SUFFIX
#undef SAFE_MIN

#define REAL     float
#define SUFFIX   s
#define SAFE_MIN FLT_MIN
#include PS_CPU_TEMPLATE
#undef REAL
#undef SUFFIX
#undef SAFE_MIN
#undef PS_CPU_TEMPLATE
