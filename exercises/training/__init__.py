"""The training lab's side of the curriculum: the saved run (models, settings,
table), the table's reading for a learner, and the exercises graded against it."""
