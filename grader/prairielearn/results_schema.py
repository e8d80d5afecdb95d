"""PrairieLearn's external-grader results, /grade/results/results.json, as its documentation
describes them (docs/externalGrading.md, "Grading results"): what a file must hold for
PrairieLearn to record a grade and for <pl-external-grader-results> to show it.

- `gradable` (boolean, true when absent): false marks the submission invalid, with no
  points given or taken and no attempt used; `format_errors` (a string or a list of them)
  then says why.
- `score`, a number from 0 to 1, the one mandatory field of a gradable submission.
- `message` and `output`, strings.
- `images`: data URLs, each a string or an object with `url` and an optional `label`.
- `tests`: objects with `name`, `description`, `points`, `max_points`, `message`, `output`
  (and `images`); anything else may be added.
- The whole file is limited to 1 MB.
"""
import json

MAX_BYTES = 1_000_000  # "this file should be limited to 1 MB"
TEST_TEXTS = ("name", "description", "message", "output")


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _image_problems(images, where):
    if not isinstance(images, list):
        return [f"{where}images is not a list"]
    out = []
    for i, image in enumerate(images):
        if isinstance(image, str):
            continue
        if not isinstance(image, dict) or not isinstance(image.get("url"), str):
            out.append(f"{where}images[{i}] is neither a URL nor an object with a string 'url'")
        elif not isinstance(image.get("label", ""), str):
            out.append(f"{where}images[{i}].label is not a string")
    return out


def _test_problems(test, i):
    where = f"tests[{i}]"
    if not isinstance(test, dict):
        return [f"{where} is not an object"]
    out = [f"{where}.{k} is not a string" for k in TEST_TEXTS if k in test and not isinstance(test[k], str)]
    if "name" not in test:
        out.append(f"{where} has no name")
    for k in ("points", "max_points"):
        if not _is_number(test.get(k)):
            out.append(f"{where}.{k} is missing or not a number")
        elif test[k] < 0:
            out.append(f"{where}.{k} is negative")
    if not out and test["points"] > test["max_points"]:
        out.append(f"{where} has more points than its max_points")
    if "images" in test:
        out += _image_problems(test["images"], where + ".")
    return out


def problems(results):
    """Why RESULTS (the parsed results.json) is not what PrairieLearn documents, or []."""
    if not isinstance(results, dict):
        return ["the results are not a JSON object"]
    out = []
    gradable = results.get("gradable", True)
    if not isinstance(gradable, bool):
        out.append("gradable is not a boolean")
    if gradable is not False or "score" in results:
        score = results.get("score")
        if not _is_number(score):
            out.append("score is missing or not a number" + (" (it is mandatory when gradable)" if gradable else ""))
        elif not 0.0 <= score <= 1.0:
            out.append(f"score {score} is outside [0, 1]")
    out += [f"{k} is not a string" for k in ("message", "output") if k in results and not isinstance(results[k], str)]
    errors = results.get("format_errors", [])
    if not isinstance(errors, str) and not (isinstance(errors, list) and all(isinstance(e, str) for e in errors)):
        out.append("format_errors is neither a string nor a list of strings")
    if "images" in results:
        out += _image_problems(results["images"], "")
    tests = results.get("tests", [])
    if not isinstance(tests, list):
        out.append("tests is not a list")
    else:
        for i, test in enumerate(tests):
            out += _test_problems(test, i)
    size = len(json.dumps(results).encode("utf-8"))
    if size > MAX_BYTES:
        out.append(f"the file is {size} bytes, over PrairieLearn's {MAX_BYTES}")
    return out
