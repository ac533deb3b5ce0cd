/* Assignment tracking: clang 17+ at -O1 and above links each store to a local's memory with a
 * DIAssignID and records it as llvm.dbg.assign / #dbg_assign (value, variable, fragment
 * expression, the id, the address and its expression). A struct whose fields are stored one
 * by one (fragments), a store made conditional, an address that escapes, a scalar promoted. */
struct pair {
  int a, b;
};

int use(struct pair *p);

int assign(int x) {
  struct pair p;
  p.a = x * 2;
  p.b = x + 1;
  if (x > 3)
    p.a = 7;
  int sum = use(&p);
  int local = sum;
  for (int i = 0; i < x; i++)
    local += i * p.b;
  return local + p.a;
}
