import logging

from birdie_tui.store.logfile import LOG_NAME, log_to_file


def test_warnings_go_to_the_log_file_not_the_terminal(tmp_path, capsys):
    """Warnings go to the current log file only, never to stdout or stderr; setup is idempotent."""
    first, second = tmp_path / "a" / "logs", tmp_path / "b" / "logs"
    assert log_to_file(first, "birdie_tui.test_logfile") == first / LOG_NAME
    logger = logging.getLogger("birdie_tui.test_logfile.child")
    logger.warning("polling instead")
    assert log_to_file(second, "birdie_tui.test_logfile") == second / LOG_NAME
    log_to_file(second, "birdie_tui.test_logfile")  # idempotent
    logger.warning("second home")
    assert "polling instead" in (first / LOG_NAME).read_text()
    assert "second home" not in (first / LOG_NAME).read_text()
    assert (second / LOG_NAME).read_text().count("second home") == 1
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
