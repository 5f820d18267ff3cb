/* A starter bot for Ultimate Tic-Tac-Toe (CodinGame protocol).
 *
 * Every turn it reads the opponent's last move ("row col", "-1 -1" on the first
 * turn), the number of valid actions and that many "row col" lines, and answers
 * "row col": here the first valid action. Put your strategy in choose. */
#include <stdio.h>

/* The index of the action to play: here the first valid one. */
static int choose(int last_row, int last_col, int n, int actions[][2]) {
    (void)last_row, (void)last_col, (void)n, (void)actions;
    return 0;
}

int main(void) {
    int last_row, last_col, n, actions[81][2];
    while (scanf("%d %d %d", &last_row, &last_col, &n) == 3 && n > 0 && n <= 81) {
        for (int i = 0; i < n; i++) scanf("%d %d", &actions[i][0], &actions[i][1]);
        int k = choose(last_row, last_col, n, actions);
        printf("%d %d\n", actions[k][0], actions[k][1]);
        fflush(stdout);
    }
    return 0;
}
