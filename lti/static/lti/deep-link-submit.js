// Posts the signed deep-linking response to the LMS as soon as the page loads
// (lti.deep_linking.deep_link_response_form); without script, its button does.
document.getElementById("lti-deep-link").submit();
