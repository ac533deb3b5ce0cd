/* Values LLVM can describe only by converting a wider register: at -O2 with DWARF 5 their
   locations use DW_OP_convert on base types (dwarv writes those in one pass, gimli resolving
   the base type offsets). */
extern void use(int);
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
