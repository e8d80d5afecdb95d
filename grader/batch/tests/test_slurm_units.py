"""The Slurm side of batch grading without a cluster: shards, job scripts, what Slurm's
commands print about an array's tasks, the gradebook statuses, the command's checks."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from grader import names
from grader.batch import grade_one
from grader.batch import intake
from grader.batch import grader_command
from grader.batch import gradebook
from grader.batch import merge
from grader.batch import shard
from grader.batch import slurm_status
from grader.batch import slurm_submit
from grader.batch.build_recipe import BuildResult

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


BATCH = os.path.join(HERE, "..", "grade_batch.py")
# The course build (ctest passes it): for the command's own dry run.
BUILD = sys.argv[1] if len(sys.argv) > 1 else None


def options(*argv):
    p = argparse.ArgumentParser()
    p.add_argument("--emulate", action="store_true")
    p.add_argument("--graders-per-gpu", type=int, default=1)
    slurm_submit.add_options(p)
    return p.parse_args(["--slurm", *argv])


class Shards(unittest.TestCase):
    def test_split_is_balanced_and_keeps_order(self):
        shards = shard.split(list(range(30)), 4)
        self.assertEqual([len(s) for s in shards], [8, 8, 7, 7])
        self.assertEqual(sum(shards, []), list(range(30)))

    def test_never_more_shards_than_submissions(self):
        self.assertEqual(shard.split([1, 2], 5), [[1], [2]])

    def test_default_tasks(self):
        self.assertEqual([shard.default_tasks(n) for n in (1, 8, 9, 30, 400)], [1, 1, 2, 4, 50])

    def test_runs_get_their_own_folders(self):
        tmp = tempfile.mkdtemp()
        try:
            first, second = shard.new_run_dir(tmp), shard.new_run_dir(tmp)
            self.assertEqual([os.path.basename(first), os.path.basename(second)], ["run-1", "run-2"])
            m = shard.write_run(second, {"lab": "lab1"}, [[{"name": "a", "student_id": "a", "built": {}}],
                                                          [{"name": "b", "student_id": "b", "built": {}}]])
            self.assertEqual(shard.task_of(m), {"a": 0, "b": 1})
            self.assertEqual(shard.read_shard(second, 1)[0]["name"], "b")
        finally:
            shutil.rmtree(tmp)


class JobScripts(unittest.TestCase):
    def test_gpu_array(self):
        args = options("--partition", "gpu", "--account", "cs101", "--throttle", "3", "--time-per-submission", "1.5")
        text = slurm_submit.array_script("/r/.slurm/run-1", "lab3", [8, 8, 7], args)
        for line in ("#SBATCH --array=0-2%3", "#SBATCH --time=17", "#SBATCH --gres=gpu:1", "#SBATCH --partition=gpu",
                     "#SBATCH --account=cs101", "#SBATCH --output=/r/.slurm/run-1/task-%a.out"):
            self.assertIn(line + "\n", text)
        # The task's Python imports the course's packages from its root, whatever the job's folder.
        self.assertIn(f'\nexport PYTHONPATH={ROOT}"${{PYTHONPATH:+:$PYTHONPATH}}"\n'
                      f'exec {sys.executable} {ROOT}/grader/batch/slurm_task.py /r/.slurm/run-1 "$SLURM_ARRAY_TASK_ID"\n',
                      text)

    def test_time_covers_one_whole_grading(self):
        # 2 submissions of 1 minute, but one grading may take 30: Slurm must not stop it first.
        self.assertEqual(slurm_submit.task_minutes(1, 2, 1800), 35)
        self.assertEqual(slurm_submit.task_minutes(1.5, 8, 60), 17)

    def test_results_path_that_sbatch_cannot_read_is_refused(self):
        args = options("--dry-run")
        args.out = "/tmp/class results%1"
        problem = slurm_submit.check_options(args)
        self.assertIsNotNone(problem)
        self.assertIn("may not hold ' ' '%'", problem)
        args.out = "/tmp/class_results"
        self.assertIsNone(slurm_submit.check_options(args))

    def test_emulated_array_asks_no_gpu(self):
        text = slurm_submit.array_script("/r", "lab1", [3], options("--emulate"))
        self.assertNotIn("--gres", text)
        self.assertIn("#SBATCH --cpus-per-task=1\n", text)

    def test_extra_arguments_and_merge_dependency(self):
        args = options("--sbatch-arg=--qos=long", "--sbatch-arg=--constraint=h200")
        array, merge_cmd = slurm_submit.sbatch_commands(args, "a.sh", "m.sh", "77")
        self.assertEqual(array, ["sbatch", "--parsable", "--qos=long", "--constraint=h200", "a.sh"])
        self.assertEqual(merge_cmd, ["sbatch", "--parsable", "--dependency=afterany:77", "m.sh"])
        self.assertIsNone(slurm_submit.sbatch_commands(options("--wait"), "a.sh", "m.sh")[1])
        # The merge job gets only its own extra arguments.
        args = options("--sbatch-arg=--constraint=h200", "--merge-sbatch-arg=--qos=short")
        array, merge_cmd = slurm_submit.sbatch_commands(args, "a.sh", "m.sh", "78")
        self.assertEqual(array, ["sbatch", "--parsable", "--constraint=h200", "a.sh"])
        self.assertEqual(merge_cmd, ["sbatch", "--parsable", "--dependency=afterany:78", "--qos=short", "m.sh"])

    def test_bad_options(self):
        self.assertIn("--throttle", slurm_submit.check_options(options("--throttle", "0", "--dry-run")))
        self.assertIn("--tasks", slurm_submit.check_options(options("--tasks", "0", "--dry-run")))
        self.assertIn("emulator", slurm_submit.check_options(options("--emulate", "--gpus-per-task", "1",
                                                                           "--dry-run")))
        self.assertIn("--wait and --dry-run", slurm_submit.check_options(options("--wait", "--dry-run")))
        self.assertIn("no merge job", slurm_submit.check_options(options("--wait", "--merge-sbatch-arg=--qos=x")))
        loose = options("--partition", "p")
        loose.slurm = False
        self.assertIn("with --slurm", slurm_submit.check_options(loose))


class SlurmAccount(unittest.TestCase):
    def test_sacct(self):
        text = "12_0|COMPLETED\n12_1|CANCELLED by 0\n12_2|TIMEOUT\n12_[3-4%2]|PENDING\n13_0|FAILED\n"
        self.assertEqual(slurm_status.parse_sacct(text, "12"),
                         {0: "COMPLETED", 1: "CANCELLED", 2: "TIMEOUT", 3: "PENDING", 4: "PENDING"})

    def test_scontrol(self):
        text = ("JobId=20 ArrayJobId=18 ArrayTaskId=2 JobName=grade-lab1 JobState=NODE_FAIL Reason=None\n"
                "JobId=18 ArrayJobId=18 ArrayTaskId=3,5-6 JobState=PENDING Reason=JobArrayTaskLimit\n")
        self.assertEqual(slurm_status.parse_scontrol(text, "18"),
                         {2: "NODE_FAIL", 3: "PENDING", 5: "PENDING", 6: "PENDING"})

    def test_statuses_and_messages(self):
        for state, status in (("TIMEOUT", "slurm_timeout"), ("CANCELLED", "slurm_cancelled"),
                              ("NODE_FAIL", "slurm_node_fail"), ("PREEMPTED", "slurm_preempted"),
                              ("OUT_OF_MEMORY", "slurm_out_of_memory"), ("FAILED", "slurm_failed"),
                              ("COMPLETED", "slurm_failed")):
            got, message = slurm_status.status_for(state, "sacct", "12_3")
            self.assertEqual(got, status)
            self.assertIn(f"array task 12_3 ended {state} (sacct)", message)
            self.assertIn(got, names.SLURM_STATUSES)
        got, message = slurm_status.status_for(None, None, "12_3")
        self.assertEqual((got, message.split(":")[0]), ("slurm_unknown", "unknown"))
        self.assertIn("Slurm has no record of array task 12_3", message)

    def test_merge_rows_for_a_task_without_record(self):
        tmp = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(tmp, "a"))
            shard.write_json(os.path.join(tmp, "a", "row.json"), gradebook.row("a", "a", "graded", 5, 10))
            manifest = {"out": tmp, "class": [{"name": "a", "student_id": "a"}, {"name": "b", "student_id": "b"}],
                        "shards": [["a", "b"]]}
            rows, missing = merge.class_rows(manifest, None)
            self.assertEqual(missing, 1)
            self.assertEqual([r["status"] for r in rows], ["graded", "slurm_unknown"])
            self.assertIn("array task None_0", rows[1]["message"])
        finally:
            shutil.rmtree(tmp)

    def test_a_task_row_carries_the_identity_intake_found(self):
        # What the submitting node's intake wrote in the shard, as slurm_task.py rebuilds it.
        tmp = tempfile.mkdtemp()
        try:
            ann = intake.Submission("submission_1", tmp, "dir", "ann@uni.edu", full_name="Ann", email="ann@uni.edu",
                                    submitted_at=1764000000.0, time_source="export", other_entries="old.zip")
            entry = json.loads(json.dumps({"name": ann.name, "student_id": ann.student_id, "identity": ann.identity()}))
            sub = intake.Submission(entry["name"], "", "built", entry["student_id"], known_identity=entry["identity"])
            g = grade_one.SubmissionGrader(tmp, "lab1", "grader", "emulated")
            g.record(sub, gradebook.row(sub.name, sub.student_id, "graded", 5, 10))
            row = shard.read_json(os.path.join(tmp, "submission_1", "row.json"))
            self.assertEqual((row["full_name"], row["email"], row["submitted_at"], row["time_source"],
                              row["other_entries"]), ("Ann", "ann@uni.edu", "2025-11-24T16:00:00+00:00", "export",
                                                      "old.zip"))
        finally:
            shutil.rmtree(tmp)

    def test_figures_print_as_they_are_stored(self):
        from grader.batch import throughput
        # 15 in 11.14555 s is 80.7496 a minute, which would print as 80.7 but be stored as
        # 80.750, which prints as 80.8: stored (to 3 places) and printed (to 1) alike.
        fig = throughput.figures(15, 11.14555, 10, 11.6, 9, 9.0)
        self.assertEqual(fig["per_minute"], 80.75)
        self.assertEqual(f"{fig['per_minute']:.1f}", "80.8")
        self.assertEqual(fig["per_minute_once_built"], 60.0)

    def test_merge_figures(self):
        tmp = tempfile.mkdtemp()
        try:
            manifest = {"started": time.time() - 120, "todo": 10, "shards": [["a"], ["b"]],
                        "builds": {"count": 8, "seconds": 20.0}}
            shard.write_json(os.path.join(tmp, "task-0.json"), {"start": 1000.0, "end": 1030.0, "count": 3})
            shard.write_json(os.path.join(tmp, "task-1.json"), {"start": 1010.0, "end": 1060.0, "count": 3})
            lines = merge.figures(tmp, manifest, 6)
            self.assertRegex(lines[0], r"^processed 10 submission\(s\) in 12\d\.\d s \([45]\.\d per minute\) "
                                       r"through Slurm, 2 array task\(s\)")
            self.assertIn("builds: 8 compiled and linked on the submitting node, 20.0 s of build time (2.5 s each)",
                          lines[1])
            self.assertIn("grading: 6 graded by 2 array task(s) in 60.0 s", lines[2])
            self.assertIn("(6.0 per minute once built)", lines[2])
            # Nothing graded: no grading line.
            self.assertEqual(len(merge.figures(tmp, manifest, 0)), 2)
        finally:
            shutil.rmtree(tmp)


class GpuLocks(unittest.TestCase):
    def test_one_grader_per_gpu_needs_no_lock(self):
        self.assertEqual(grade_one.gpu_slots(["0", "1"], 1, "/nonexistent"), [("0", None), ("1", None)])

    def test_graders_of_one_gpu_share_its_lock(self):
        tmp = tempfile.mkdtemp()
        try:
            slots = grade_one.gpu_slots(["0", "1"], 2, os.path.join(tmp, ".locks"))
            self.assertEqual([g for g, _ in slots], ["0", "0", "1", "1"])
            self.assertEqual({lock for _, lock in slots}, {os.path.join(tmp, ".locks", "gpu0"),
                                                           os.path.join(tmp, ".locks", "gpu1")})
        finally:
            shutil.rmtree(tmp)

    def test_the_lock_reaches_the_gpu_grader_only(self):
        built = BuildResult(True, "", "/w", "/s.cu", "/s.o")
        gpu = grader_command.command("grader", "lab3", built, False, gpu_lock="/r/.locks/gpu0")
        self.assertEqual(gpu[-2:], ["--gpu-lock", "/r/.locks/gpu0"])
        self.assertNotIn("--gpu-lock", grader_command.command("grader", "lab3", built, True, gpu_lock="/l"))


class PinnedFiles(unittest.TestCase):
    SHA = "a80a87ebd5d05a396d86491a20b473e9e4f8b124c6030aeb30077a6c9eb43cea"

    def test_each_file_reaches_the_grader_with_its_pin(self):
        built = BuildResult(True, "", "/w", "/s.cu", "/s.o")
        cmd = grader_command.command("grader", "lab3", built, True, reference_counters=("/r/counters.json", "1" * 64),
                                     described=("/r/.described/lab3_emulated.json", self.SHA))
        at = cmd.index("--reference-counters")
        self.assertEqual(cmd[at:at + 4], ["--reference-counters", "/r/counters.json", "--reference-counters-sha256",
                                          "1" * 64])
        at = cmd.index("--described")
        self.assertEqual(cmd[at:at + 4], ["--described", "/r/.described/lab3_emulated.json", "--described-sha256",
                                          self.SHA])
        # A failed build reads neither.
        failed = grader_command.command("grader", "lab3", built, True, build_failure="/b.json",
                                        reference_counters=("/r/counters.json", "1" * 64), described=("/d", self.SHA))
        self.assertNotIn("--reference-counters", failed)
        self.assertNotIn("--described", failed)

    def test_the_pin_is_the_graders_own_line(self):
        # The last line of 64 hex digits the grader printed; none, no pin (and no file read).
        self.assertEqual(grade_one.said_sha256(f"worker note\n{self.SHA}\n"), self.SHA)
        self.assertIsNone(grade_one.said_sha256(f"{self.SHA}\nthen something else\n"))
        self.assertIsNone(grade_one.said_sha256("grader: --describe-lab: unknown lab 'lab9'\n"))
        self.assertIsNone(grade_one.said_sha256(self.SHA[:63] + "\n"))

    def test_a_manifest_pin_is_a_path_and_a_sha256(self):
        self.assertEqual(grade_one.pinned_file(["/r/c.json", self.SHA]), ("/r/c.json", self.SHA))
        # An older run's plain path, or anything else, is no pin: the grades count for themselves.
        for value in ("/r/c.json", None, ["/r/c.json"], ["/r/c.json", "abc"], ["/r/c.json", 7], {"path": "/r"}):
            self.assertIsNone(grade_one.pinned_file(value), value)


class CommandChecks(unittest.TestCase):
    def batch(self, *argv):
        return subprocess.run([sys.executable, BATCH, "lab1", "subs", "--out", "out", *argv],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tempfile.gettempdir())

    def test_every_bad_option_is_refused_with_a_reason(self):
        for argv, words in ((["--wait"], "to be used with --slurm"), (["--graders-per-gpu", "0"], "1 or more"),
                            (["--slurm", "--tasks", "0", "--dry-run"], "--tasks must be"),
                            (["--slurm", "--emulate", "--gpus-per-task", "2", "--dry-run"], "emulator")):
            p = self.batch(*argv)
            self.assertEqual(p.returncode, 2, argv)
            self.assertIn(words, p.stdout.decode())


@unittest.skipUnless(BUILD, "needs the course build folder as the first argument")
class DryRun(unittest.TestCase):
    def test_dry_run_prints_the_scripts_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            subs = os.path.join(d, "subs")
            os.makedirs(os.path.join(subs, "alice"))
            with open(os.path.join(subs, "alice", "kernels.cu"), "w") as f:
                f.write("// nothing yet\n")
            out = os.path.join(d, "results", "lab1")
            p = subprocess.run([sys.executable, BATCH, "lab1", subs, "--out", out, "--build-dir", BUILD, "--emulate",
                                "--slurm", "--dry-run", "--merge-sbatch-arg=--qos=short"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            text = p.stdout.decode()
            self.assertEqual(p.returncode, 0, text)
            self.assertIn("1 submission(s) without a result, in 1 array task(s)", text)
            self.assertIn("#SBATCH --array=0-0", text)
            self.assertIn("'--dependency=afterany:<array job id>' --qos=short", text)
            self.assertFalse(os.path.exists(os.path.join(d, "results")))  # nothing made, not even RESULTS
            # A RESULTS that could never be written is still refused.
            blocked = os.path.join(d, "file")
            open(blocked, "w").close()
            p = subprocess.run([sys.executable, BATCH, "lab1", subs, "--out", os.path.join(blocked, "r"), "--build-dir",
                                BUILD, "--emulate", "--slurm", "--dry-run"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            self.assertEqual(p.returncode, 2)
            self.assertIn("is not a folder", p.stdout.decode())


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
