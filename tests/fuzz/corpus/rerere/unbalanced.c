<<<<<<< a
only one side
