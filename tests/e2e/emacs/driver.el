;;; driver.el --- batch-mode end-to-end run of emacs/rulelens.el with eglot  -*- lexical-binding: t; -*-
;; Environment: RULELENS_ROOT (checkout), RULELENS_CMD (JSON argv of the server), FILE (the
;; demo file to open), OUT (JSON result).  Exits 0 when every step ran, 1 otherwise; the
;; Python test asserts on OUT.
(require 'package)
(package-initialize)   ; Debian's elpa-eglot on Emacs 28; built in from Emacs 29
(require 'json)
(load (expand-file-name "emacs/rulelens.el" (getenv "RULELENS_ROOT")))

(defvar driver-result nil)
(defun driver-put (key value) (push (cons key value) driver-result))
(defun driver-write ()
  (let ((coding-system-for-write 'utf-8))
    (with-temp-file (getenv "OUT") (insert (json-encode driver-result)))))
(defun driver-wait (pred seconds)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall pred)))

(setq rulelens-command (json-parse-string (getenv "RULELENS_CMD") :array-type 'list)
      rulelens-modes '(python-mode markdown-mode text-mode)
      eglot-sync-connect t)
(rulelens-eglot-setup)
(driver-put "emacs" emacs-version)
(driver-put "eglot_file" (locate-library "eglot"))
(let ((code 1) server)
  (condition-case err
      (progn
        (find-file (getenv "FILE"))
        (setq server (apply #'eglot--connect (eglot--guess-contact)))
        (unless (driver-wait (lambda () eglot--managed-mode) 30)
          (error "eglot did not manage the buffer"))
        (driver-put "attached" t)
        (driver-put "server_name" (plist-get (eglot--server-info server) :name))
        (driver-put "code_lens_provider"
                    (if (eglot--server-capable :codeLensProvider) t :json-false))
        (driver-put "lenses" (vconcat (rulelens-code-lenses)))
        (let ((chain (rulelens-chain)))
          (driver-put "chain_files"
                      (vconcat (mapcar (lambda (f) (plist-get f :path)) (plist-get chain :files))))
          (driver-put "chain_skipped"
                      (vconcat (mapcar (lambda (s) (format "%s [%s]" (plist-get s :path) (plist-get s :reason)))
                                       (plist-get chain :skipped)))))
        (driver-put "chain_buffer" (with-current-buffer "*RuleLens chain*" (buffer-string)))
        (let ((payload (rulelens-agents)))
          (driver-put "headline" (plist-get payload :headline))
          (driver-put "agents_lens" (plist-get payload :lens)))
        (driver-put "agents_buffer" (with-current-buffer "*RuleLens agents*" (buffer-string)))
        (let ((hover (jsonrpc-request server :textDocument/hover
                                      (list :textDocument (eglot--TextDocumentIdentifier)
                                            :position (list :line 0 :character 0)))))
          (driver-put "hover" (plist-get (plist-get hover :contents) :value)))
        (setq code 0))
    (error (driver-put "error" (error-message-string err))))
  (when server
    (ignore-errors (eglot-shutdown server)))
  (driver-write)
  (kill-emacs code))
