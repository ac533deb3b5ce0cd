/* What clang -O2 (DWARF 5) emits for optimised code that the -O0 sources do not show:
   - values LLVM can describe only by converting a wider register: DW_OP_convert on base types;
   - a function emitted out of line before the function it is inlined into: its concrete DIE
     comes before its abstract origin;
   - a variadic function with parameters (DW_TAG_unspecified_parameters after them);
   - an inlined parameter whose constant value needs all 64 unsigned bits (DW_FORM_data8). */
#include <stdarg.h>

extern void use(int);
extern void use64(unsigned long long);
extern int get(void);

int narrow(int x) {
  short s = (short)x;
  unsigned char c = (unsigned char)x;
  use(x + 1);
  use(s);
  use(c);
  return s + c;
}

int widen(void) {
  signed char b = (signed char)get();
  long long wide = b;
  use((int)wide);
  use(b);
  return (int)(wide >> 3);
}

int scale(int v) {
  int t = v * 3;
  use(t);
  return t + 1;
}

int caller(int x) { return scale(x) + scale(get()); }

int total(int n, ...) {
  va_list ap;
  int sum = 0;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    sum += va_arg(ap, int);
  va_end(ap);
  return sum;
}

static inline void put64(unsigned long long v) {
  use64(v);
  use64(v >> 1);
}

void all_ones(void) { put64(0xffffffffffffffffull); }
