/* Hostile: a compile that never ends. The file includes itself twice at each of 100
   levels: the preprocessor walks 2^100 includes, silently, in constant memory. */
#if __INCLUDE_LEVEL__ == 0
int main(void) { return 0; }
#endif
#if __INCLUDE_LEVEL__ < 100
#include __FILE__
#include __FILE__
#endif
