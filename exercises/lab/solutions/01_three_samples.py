def three_samples(tokens: list[str], mask_positions: list[int], start: int, end: int) -> tuple:
    causal_inputs, causal_labels = tokens[:-1], tokens[1:]
    masked_inputs = list(tokens)
    masked_labels = {}
    for position in mask_positions:
        masked_labels[position] = tokens[position]
        masked_inputs[position] = "[MASK]"
    span_inputs = tokens[:start] + ["<extra_id_0>"] + tokens[end:]
    span_target = ["<extra_id_0>"] + tokens[start:end] + ["<extra_id_1>"]
    return causal_inputs, causal_labels, masked_inputs, masked_labels, span_inputs, span_target


MY_SENTENCE = "今天天气很好，我们去公园散步"

if __name__ == "__main__":  # python 01_three_samples.py
    from_text = list(MY_SENTENCE) if " " not in MY_SENTENCE else MY_SENTENCE.split()
    for row in three_samples(from_text, [2, 5], 2, 5):
        print(row)
