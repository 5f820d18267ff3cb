import java.util.Scanner;

/**
 * A starter bot for Ultimate Tic-Tac-Toe (CodinGame protocol).
 *
 * <p>Every turn it reads the opponent's last move ("row col", "-1 -1" on the first
 * turn), the number of valid actions and that many "row col" lines, and answers
 * "row col": here the first valid action. Put your strategy in choose.
 */
public class Bot {
    /** The action to play: here the first valid one. */
    static int[] choose(int[] last, int[][] actions) {
        return actions[0];
    }

    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        while (in.hasNextInt()) {
            int[] last = {in.nextInt(), in.nextInt()};
            int[][] actions = new int[in.nextInt()][];
            for (int i = 0; i < actions.length; i++) {
                actions[i] = new int[] {in.nextInt(), in.nextInt()};
            }
            int[] move = choose(last, actions);
            System.out.println(move[0] + " " + move[1]);
            System.out.flush();
        }
    }
}
