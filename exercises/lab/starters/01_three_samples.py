def three_samples(tokens: list[str], mask_positions: list[int], start: int, end: int) -> tuple:
    # TODO: your code here
    raise NotImplementedError("three_samples: not written yet")


MY_SENTENCE = "今天天气很好，我们去公园散步"

if __name__ == "__main__":  # python 01_three_samples.py
    from_text = list(MY_SENTENCE) if " " not in MY_SENTENCE else MY_SENTENCE.split()
    for row in three_samples(from_text, [2, 5], 2, 5):
        print(row)
