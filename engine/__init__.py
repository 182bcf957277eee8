"""The torch engine: masks, sample builders and losses for every objective,
and the lessons' reference runs. Imports torch, never textual or rich."""
