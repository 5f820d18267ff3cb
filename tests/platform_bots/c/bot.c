/* A Riddles.io Ultimate Tic-Tac-Toe bot: plays legal moves by its STRATEGY. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *STRATEGY = "random"; /* random | first | center | win-if-possible */
static const uint64_t SEED = 0;
static const int LINES[8][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6},
                                {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}};
static uint64_t state;

/* The fixtures' LCG, the same in every language. */
static int below(int n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((state >> 33) % (uint64_t)n);
}

static int cell(int board, int k) {
    return 9 * (3 * (board / 3) + k / 3) + 3 * (board % 3) + k % 3;
}

/* Split a comma-separated list into n tokens of at most 3 characters. */
static void split(char *text, char out[][4], int n) {
    char *tok = strtok(text, ",");
    for (int i = 0; i < n; i++) {
        snprintf(out[i], 4, "%s", tok ? tok : "?");
        tok = strtok(NULL, ",");
    }
}

static int wins(char field[81][4], int i, const char *me) {
    int board = 3 * (i / 27) + (i % 9) / 3;
    for (int l = 0; l < 8; l++) {
        int all = 1;
        for (int j = 0; j < 3; j++) {
            int c = cell(board, LINES[l][j]);
            all &= c == i || strcmp(field[c], me) == 0;
        }
        if (all) return 1;
    }
    return 0;
}

static int choose(char field[81][4], char macro[9][4], const char *me) {
    int legal[81], n = 0, best[81], m = 0;
    for (int i = 0; i < 81; i++)
        if (!strcmp(field[i], ".") && !strcmp(macro[3 * (i / 27) + (i % 9) / 3], "-1"))
            legal[n++] = i;
    if (!strcmp(STRATEGY, "first")) return legal[0];
    if (!strcmp(STRATEGY, "center")) {
        for (int k = 0; k < n; k++)
            if (legal[k] % 3 == 1 && (legal[k] / 9) % 3 == 1) best[m++] = legal[k];
        if (!m)
            for (int k = 0; k < n; k++)
                if (legal[k] % 3 != 1 && (legal[k] / 9) % 3 != 1) best[m++] = legal[k];
    }
    if (!strcmp(STRATEGY, "win-if-possible"))
        for (int k = 0; k < n; k++)
            if (wins(field, legal[k], me)) best[m++] = legal[k];
    if (!m) return legal[below(n)];
    return best[below(m)];
}

int main(void) {
    static char line[4096], field[81][4], macro[9][4];
    char me[8] = "0", a[64], b[64], c[64], d[4096];
    state = SEED * 2654435761ULL + 12345;
    while (fgets(line, sizeof line, stdin)) {
        int parts = sscanf(line, "%63s %63s %63s %4095s", a, b, c, d);
        if (parts == 3 && !strcmp(a, "settings") && !strcmp(b, "your_botid")) {
            snprintf(me, sizeof me, "%s", c);
        } else if (parts == 4 && !strcmp(a, "update") && !strcmp(c, "field")) {
            split(d, field, 81);
        } else if (parts == 4 && !strcmp(a, "update") && !strcmp(c, "macroboard")) {
            split(d, macro, 9);
        } else if (parts >= 2 && !strcmp(a, "action") && !strcmp(b, "move")) {
            int i = choose(field, macro, me);
            printf("place_disc %d %d\n", i % 9, i / 9);
            fflush(stdout);
        }
    }
    return 0;
}
