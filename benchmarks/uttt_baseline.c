/* uttt_baseline.c: a plain C Ultimate Tic-Tac-Toe, the yardstick for ninefold's kernel.

   Standard rules (docs/guide/rules.md): X moves first, anywhere; the cell played names
   the small board where the opponent must play next; a small board is closed once
   won or full; a player sent to a closed board may play in any open board; three
   won boards in a row win the game, and no legal move left is a draw.

   Straightforward on purpose: one 9-bit mask per small board and player,
   512-entry tables (does this mask hold a line, how many cells, where is its
   k-th cell), a recursive perft that counts the moves of the last ply without
   playing them, and uniformly random playouts (every legal (board, cell) move
   equally likely) with an xorshift generator.

       cc -O3 -march=native -o uttt_baseline uttt_baseline.c
       ./uttt_baseline perft DEPTH [BOARD,CELL ...]   one line a depth: "perft D COUNT SECONDS"
       ./uttt_baseline playouts SECONDS [SEED]         "playouts GAMES moves PLIES seconds T"

   Boards and cells are 0-8 in reading order. Start moves are checked: an illegal
   one is an error (exit 2). */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ALL 0x1FF /* nine bits: all cells of a board, or all boards */

typedef struct {
    uint16_t mark[2][9]; /* cells held by X (0) and O (1) in each small board */
    uint16_t won[2];     /* small boards won by X and by O */
    uint16_t closed;     /* small boards won or full: nobody plays there again */
    int8_t target;       /* the board the mover was sent to, or -1: a free move */
    int8_t turn;         /* 0: X to move, 1: O */
    int8_t result;       /* -1 game on, 0 X won, 1 O won, 2 draw */
} State;

static uint8_t has_line[512]; /* has_line[m]: the cells in mask m hold three in a row */
static uint8_t bits[512];     /* population count of a 9-bit mask */
static uint8_t nth[512][9];   /* nth[m][k]: the index of the k-th set bit of m (k from 0) */

static void init_tables(void) {
    static const uint16_t lines[8] = {0007, 0070, 0700, 0111, 0222, 0444, 0421, 0124};
    for (int m = 0; m < 512; m++) {
        has_line[m] = 0;
        for (int k = 0; k < 8; k++)
            if ((m & lines[k]) == lines[k]) has_line[m] = 1;
        bits[m] = (uint8_t)__builtin_popcount((unsigned)m);
        for (int i = 0, k = 0; i < 9; i++)
            if (m >> i & 1) nth[m][k++] = (uint8_t)i;
    }
}

static void new_game(State *s) {
    for (int p = 0; p < 2; p++) {
        for (int b = 0; b < 9; b++) s->mark[p][b] = 0;
        s->won[p] = 0;
    }
    s->closed = 0;
    s->target = -1;
    s->turn = 0;
    s->result = -1;
}

/* The boards the mover may play in (none once the game is over). */
static inline unsigned playable(const State *s) {
    if (s->result >= 0) return 0;
    if (s->target >= 0) return 1u << s->target; /* target is never closed (see play) */
    return ALL & ~s->closed;
}

static inline unsigned empty_cells(const State *s, int b) {
    return ALL & ~(s->mark[0][b] | s->mark[1][b]);
}

/* Play cell c of board b for the side to move; the move must be legal. */
static inline void play(State *s, int b, int c) {
    int p = s->turn;
    s->mark[p][b] |= (uint16_t)(1u << c);
    if (has_line[s->mark[p][b]]) {
        s->won[p] |= (uint16_t)(1u << b);
        s->closed |= (uint16_t)(1u << b);
        if (has_line[s->won[p]]) s->result = (int8_t)p;
    } else if ((s->mark[0][b] | s->mark[1][b]) == ALL) {
        s->closed |= (uint16_t)(1u << b);
    }
    if (s->result < 0 && s->closed == ALL) s->result = 2; /* no legal move left */
    s->target = (s->closed >> c) & 1 ? -1 : (int8_t)c;
    s->turn = (int8_t)(1 - p);
}

static inline int count_moves(const State *s) {
    int n = 0;
    for (unsigned boards = playable(s); boards; boards &= boards - 1)
        n += bits[empty_cells(s, __builtin_ctz(boards))];
    return n;
}

static uint64_t perft(const State *s, int depth) {
    if (depth == 0) return 1;
    if (depth == 1) return (uint64_t)count_moves(s);
    uint64_t total = 0;
    for (unsigned boards = playable(s); boards; boards &= boards - 1) {
        int b = __builtin_ctz(boards);
        for (unsigned cells = empty_cells(s, b); cells; cells &= cells - 1) {
            State child = *s;
            play(&child, b, __builtin_ctz(cells));
            total += perft(&child, depth - 1);
        }
    }
    return total;
}

/* xorshift64 and Lemire's multiply-shift for a number below n. */
static inline uint64_t next_random(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static inline int below(uint64_t *x, int n) {
    return (int)(((next_random(x) >> 32) * (uint64_t)n) >> 32);
}

/* One uniformly random game from s; returns the number of plies played. The
   generator's state is kept in a local: through a pointer, every store to the
   board's int8_t fields (char types may alias anything) would reload it. */
static int random_playout(State *s, uint64_t *state) {
    uint64_t x = *state, *rng = &x;
    int plies = 0;
    while (s->result < 0) {
        if (s->target >= 0) { /* sent to an open board: a cell of it */
            unsigned cells = empty_cells(s, s->target);
            play(s, s->target, nth[cells][below(rng, bits[cells])]);
        } else { /* a free move: number the moves of all open boards, pick one */
            int k = below(rng, count_moves(s));
            for (unsigned boards = playable(s);; boards &= boards - 1) {
                int b = __builtin_ctz(boards);
                unsigned cells = empty_cells(s, b);
                if (k < bits[cells]) {
                    play(s, b, nth[cells][k]);
                    break;
                }
                k -= bits[cells];
            }
        }
        plies++;
    }
    *state = x;
    return plies;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int usage(void) {
    fprintf(stderr, "usage: uttt_baseline perft DEPTH [BOARD,CELL ...] | playouts SECONDS [SEED]\n");
    return 2;
}

int main(int argc, char **argv) {
    init_tables();
    if (argc >= 3 && argv[1][0] == 'p' && argv[1][1] == 'e') { /* perft */
        int depth = atoi(argv[2]);
        if (depth < 0 || depth > 12) return usage();
        State start;
        new_game(&start);
        for (int i = 3; i < argc; i++) {
            int b, c;
            if (sscanf(argv[i], "%d,%d", &b, &c) != 2 || b < 0 || b > 8 || c < 0 || c > 8 ||
                !((playable(&start) >> b) & 1) || !((empty_cells(&start, b) >> c) & 1)) {
                fprintf(stderr, "illegal start move %s\n", argv[i]);
                return 2;
            }
            play(&start, b, c);
        }
        for (int d = 1; d <= depth; d++) {
            double t0 = now();
            uint64_t n = perft(&start, d);
            printf("perft %d %llu %.6f\n", d, (unsigned long long)n, now() - t0);
            fflush(stdout);
        }
        return 0;
    }
    if (argc >= 3 && argv[1][0] == 'p' && argv[1][1] == 'l') { /* playouts */
        double seconds = atof(argv[2]);
        uint64_t rng = argc >= 4 ? strtoull(argv[3], NULL, 10) : 1;
        if (!(seconds > 0)) return usage();
        rng = rng * 0x9E3779B97F4A7C15ull | 1; /* never zero */
        long long games = 0, plies = 0;
        State empty, s;
        new_game(&empty);
        double t0 = now(), elapsed;
        do {
            for (int i = 0; i < 4096; i++) {
                s = empty;
                plies += random_playout(&s, &rng);
            }
            games += 4096;
            elapsed = now() - t0;
        } while (elapsed < seconds);
        printf("playouts %lld moves %lld seconds %.6f\n", games, plies, elapsed);
        return 0;
    }
    return usage();
}
