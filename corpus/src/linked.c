/* Corpus input for dwarv: the unit that ties a linked program together (tests/dwarf_linked.rs
 * links it with prog.c, optimized.c and the sqlite amalgamation into an executable, and with
 * optimized.c and sqlite into a shared library). It defines what optimized.c calls, and runs
 * from a constructor, so both the executable and a host of the shared library exercise every
 * unit and print the same lines before and after a rewrite. sqlite's API is declared here so
 * that no header path is needed. */
#include <stdio.h>

typedef struct sqlite3 sqlite3;
int sqlite3_open(const char *name, sqlite3 **db);
int sqlite3_exec(sqlite3 *db, const char *sql, int (*row)(void *, int, char **, char **),
                 void *arg, char **err);
int sqlite3_close(sqlite3 *db);

int caller(int x);
int total(int n, ...);
void all_ones(void);

static long long used;

void use(int v) { used += v; }
void use64(unsigned long long v) { used ^= (long long)v; }
int get(void) { return (int)(used & 0xff) + 7; }

/* Inlined twice and kept out of line (its address is taken), as compilers write such a function
 * at -O2: a label and a block with a static variable in each instance, and a block whose
 * variable has no code. */
static inline __attribute__((always_inline)) int scan(const char *s, int n)
{
    int i, r = 0;
    for (i = 0; i < n; i++) {
        static int seen;
        int c = s[i];
        if (c == 0)
            goto done;
        seen += c;
        r += c * 2;
    }
    r = -r;
done:
    if (n > 100) {
        int unused = n;
        (void)unused;
    }
    use(r);
    return r;
}

int (*volatile scanner)(const char *, int) = scan;

static int print_row(void *tag, int n, char **values, char **names)
{
    for (int i = 0; i < n; i++)
        printf("%s %s=%s\n", (const char *)tag, names[i], values[i] ? values[i] : "NULL");
    return 0;
}

__attribute__((constructor)) static void linked_start(void)
{
    sqlite3 *db = 0;
    if (sqlite3_open(":memory:", &db) != 0)
        return;
    sqlite3_exec(db,
                 "create table t(k integer primary key, v text);"
                 "insert into t(v) values ('one'), ('two'), ('three');"
                 "select count(*) as n, group_concat(v, '+') as vs from t;",
                 print_row, "sqlite", 0);
    sqlite3_close(db);
    all_ones();
    printf("scan %d %d %d\n", scan("linked", 3), scan("ab", 5), scanner("xyz", 2));
    printf("caller %d total %d used %lld\n", caller(5), total(3, 1, 2, 3), used);
}
