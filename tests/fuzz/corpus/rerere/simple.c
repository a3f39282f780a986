int a;
<<<<<<< ours
int b;
=======
int c;
>>>>>>> theirs
int d;
