/* A starter bot for Ultimate Tic-Tac-Toe (AI Games and Riddles.io protocols).
 *
 * It reads the position ("update game field", "update game macroboard") and, on
 * "action move", answers "place_move X Y" with the first legal square. Squares are
 * numbered 9 * y + x; a small board may be played where the macroboard says -1.
 * Put your strategy in choose. */
#include <stdio.h>
#include <string.h>

/* Split a comma-separated list into n tokens of at most 3 characters. */
static void split(const char *text, char out[][4], int n) {
    for (int i = 0; i < n; i++) {
        size_t len = strcspn(text, ",");
        snprintf(out[i], 4, "%.*s", (int)(len < 3 ? len : 3), text);
        text += len + (text[len] == ',');
    }
}

/* The square (0-80) to play: here the first legal one. */
static int choose(char field[81][4], char macroboard[9][4]) {
    const char *empty = "0"; /* AI Games' empty square, or Riddles.io's "." */
    for (int i = 0; i < 81; i++)
        if (!strcmp(field[i], ".")) empty = ".";
    for (int i = 0; i < 81; i++) {
        int board = 3 * (i / 27) + (i % 9) / 3;
        if (!strcmp(field[i], empty) && !strcmp(macroboard[board], "-1")) return i;
    }
    return -1;
}

int main(void) {
    static char line[4096], field[81][4], macroboard[9][4];
    char a[64], b[64], c[64], d[4096];
    while (fgets(line, sizeof line, stdin)) {
        int parts = sscanf(line, "%63s %63s %63s %4095s", a, b, c, d);
        if (parts == 4 && !strcmp(a, "update") && !strcmp(c, "field")) {
            split(d, field, 81);
        } else if (parts == 4 && !strcmp(a, "update") && !strcmp(c, "macroboard")) {
            split(d, macroboard, 9);
        } else if (parts >= 2 && !strcmp(a, "action") && !strcmp(b, "move")) {
            int i = choose(field, macroboard);
            printf("place_move %d %d\n", i % 9, i / 9);
            fflush(stdout);
        }
    }
    return 0;
}
