/* Corpus input for dwarv: host C whose DWARF has structs, a union, an enum,
 * bitfields, a 2-D array, function pointers, a static local, recursion and
 * (at -O2) inlining. main() returns 0 so the executable can be run under gdb. */
#include <stdio.h>
#include <string.h>

enum shape_kind { SHAPE_CIRCLE, SHAPE_RECT, SHAPE_TRI = 5 };

struct point {
    double x, y;
};

struct flags {
    unsigned visible : 1;
    unsigned layer : 4;
    unsigned dirty : 1;
    signed   z : 10;
};

union payload {
    double radius;
    struct point extent;
    unsigned char raw[16];
};

struct shape {
    enum shape_kind kind;
    struct flags fl;
    struct point origin;
    union payload u;
    const char *name;
};

typedef double (*area_fn)(const struct shape *);

static double circle_area(const struct shape *s) { return 3.14159265 * s->u.radius * s->u.radius; }
static double rect_area(const struct shape *s) { return s->u.extent.x * s->u.extent.y; }
static double tri_area(const struct shape *s) { return 0.5 * s->u.extent.x * s->u.extent.y; }

static area_fn area_table[] = { circle_area, rect_area, 0, 0, 0, tri_area };

static unsigned next_id(void)
{
    static unsigned counter = 100;   /* static local */
    return counter++;
}

/* recursion: depth-first sum over a fixed binary tree laid out in an array */
static int tree_sum(const int *nodes, int n, int i)
{
    if (i >= n)
        return 0;
    return nodes[i] + tree_sum(nodes, n, 2 * i + 1) + tree_sum(nodes, n, 2 * i + 2);
}

static void fill_grid(int grid[4][6], int bias)
{
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 6; c++)
            grid[r][c] = r * 6 + c + bias;
}

int main(void)
{
    struct shape shapes[3];
    int grid[4][6];
    double total = 0.0;

    memset(shapes, 0, sizeof shapes);
    shapes[0].kind = SHAPE_CIRCLE; shapes[0].u.radius = 2.0; shapes[0].name = "disc";
    shapes[1].kind = SHAPE_RECT;   shapes[1].u.extent = (struct point){ 3.0, 4.0 }; shapes[1].name = "box";
    shapes[2].kind = SHAPE_TRI;    shapes[2].u.extent = (struct point){ 6.0, 1.0 }; shapes[2].name = "wedge";

    for (int i = 0; i < 3; i++) {
        struct shape *s = &shapes[i];
        s->fl.visible = 1;
        s->fl.layer = (unsigned)i;
        s->fl.z = -i;
        area_fn f = area_table[s->kind];
        total += f(s);
        printf("%u %-6s %8.3f\n", next_id(), s->name, f(s));
    }

    fill_grid(grid, (int)total);
    int sum = tree_sum(&grid[0][0], 4 * 6, 0);
    printf("total %.3f tree %d\n", total, sum);
    return 0;
}
