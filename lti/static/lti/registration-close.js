// LTI Dynamic Registration: tell the LMS's registration window that the tool is done.
(window.opener || window.parent).postMessage({ subject: "org.imsglobal.lti.close" }, "*");
